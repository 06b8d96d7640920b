import { assertActive, assertStillActive, isActive } from '../../mechanisms/deactivation.js';
import {
  cleanText,
  IP_ADDRESS_MAX_LENGTH,
  USER_AGENT_MAX_LENGTH,
} from '../../mechanisms/inputs/device-info.js';
import { parseEmail } from '../../mechanisms/inputs/email.js';
import { requiredText } from '../../mechanisms/inputs/inputs.js';
import { slugify } from '../../mechanisms/inputs/slug.js';
import { createDeferredRequests, type DeferredRequests } from '../../mechanisms/mail/deferred-requests.js';
import { clientKeys, hashingOwner } from '../../mechanisms/rate-limit/client-ip-key.js';
import type { Services } from '../../mechanisms/services.js';
import { assertNotHeldToSso, heldToSso } from '../../mechanisms/sso/sso-hold.js';
import { FIXED_LIFETIMES, hashOneTimeToken, LINK_PATHS } from '../../mechanisms/tokens/one-time-tokens.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { invalidOrExpired, mailUnavailable, validationError } from '../../vocabulary/errors.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import type { RequestContext } from '../../vocabulary/records.js';
import type { ConfirmPassword } from './password-confirmation.js';

/**
 * Input of `TenantAuth.resetPassword`.
 *
 * @example
 * const input: ResetPasswordInput = { token, password: 'New-Harbour-Lantern-7' };
 */
export interface ResetPasswordInput {
  token: string;
  password: string;
}

/**
 * Input of `TenantAuth.changePassword`.
 *
 * @example
 * const input: ChangePasswordInput = { currentPassword, newPassword };
 */
export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
}

/** @internal Forgot, reset and change password. */
export function createPasswordRecovery(services: Services, confirmPassword: ConfirmPassword) {
  return {
    ...createForgotPassword(services),
    ...createPasswordReset(services),
    ...createPasswordChange(services, confirmPassword),
  };
}

/** Longest request id a held request keeps (an application's own ids are far shorter). */
const HELD_REQUEST_ID_MAX_LENGTH = 200;

/**
 * The request context a held "forgot password" keeps: capped as sessions cap it (a User-Agent may be
 * some 16 KiB), so thousands of held requests stay small.
 */
function heldContext(context: RequestContext): RequestContext {
  return {
    ipAddress: cleanText(context.ipAddress, IP_ADDRESS_MAX_LENGTH),
    userAgent: cleanText(context.userAgent, USER_AGENT_MAX_LENGTH),
    requestId: cleanText(context.requestId, HELD_REQUEST_ID_MAX_LENGTH),
  };
}

/** What a rehearsal throws to roll its transaction back. */
const REHEARSAL = Symbol('rehearsal');
/** Another instance ran the request from its durable copy first: this run writes nothing. */
const RUN_ELSEWHERE = Symbol('run elsewhere');

/** "Forgot password": the request, held, and the reset email sent from the delivery worker's timer. */
function createForgotPassword(services: Services) {
  const { stores, events, oneTimeTokens, mail, limits, logger, clock, random } = services;

  /**
   * The reset's writes, in one transaction: the token, the sealed email and the audit event. For an
   * address without an account (`user` null) the same writes are made for a tenant created in the same
   * transaction, which is then rolled back: the pass does work of the same shape and about the same cost
   * either way, so the latency of other requests during the pass does not tell the two apart, and nothing
   * of it is kept (BENCHMARKS.md, "the delivery pass"; SECURITY.md).
   */
  async function writeReset(
    user: { id: string; tenantId: string; email: string } | null,
    email: string,
    context: RequestContext,
    heldId: string,
  ): Promise<void> {
    const work = events.transaction(async (tx, record) => {
      // The request's durable copy goes with the writes it caused: both, or neither. Gone already: another
      // instance's delivery ran it (its copy came due while this one still held it), so nothing is issued twice.
      if (!(await tx.outbox.complete(heldId))) throw RUN_ELSEWHERE;
      let tenantId = user?.tenantId;
      if (!tenantId) {
        tenantId = uuidv7(clock, random);
        const slug = `rehearsal-${Buffer.from(random(8)).toString('hex')}`;
        await tx.tenants.create({
          id: tenantId,
          slug,
          name: slug,
          createdAt: clock.now(),
          requireMfa: false,
        });
      }
      const tenant = await tx.tenants.findById(tenantId);
      const { token } = await oneTimeTokens.issue(tx, {
        kind: 'password_reset',
        tenantId,
        userId: user?.id ?? null,
        email,
        lifetimeSeconds: FIXED_LIFETIMES.password_reset,
      });
      await mail?.enqueue(tx, {
        template: 'password_reset',
        to: email,
        tenantId,
        data: {
          link: mail.link(LINK_PATHS.password_reset, token),
          lifetimeSeconds: FIXED_LIFETIMES.password_reset,
          tenantName: tenant?.name ?? '',
        },
      });
      const parties = { tenantId, actorId: null, subjectId: user?.id ?? null, sessionId: null };
      await record({ type: 'password_reset_requested', ...events.base(parties, context) });
      if (!user) throw REHEARSAL;
    });
    await work.catch((err: unknown) => {
      if (err !== REHEARSAL && err !== RUN_ELSEWHERE) throw err;
    });
    // A rehearsal rolled the deletion back: deleted now (for a real reset, a deletion that finds nothing).
    await stores.outbox.complete(heldId);
  }

  /**
   * The half of "forgot" that depends on whether the account exists: run by the mail delivery worker's
   * timer (see {@link DeferredRequests}), never from the request nor right after it.
   */
  async function sendReset(email: string, context: RequestContext, heldId: string): Promise<void> {
    const budget = await limits?.mailbox(email, context);
    if (budget && !budget.allowed) {
      await stores.outbox.complete(heldId);
      return;
    }
    const found = await stores.users.findByEmail(email);
    // A user held to SSO gets no reset email: the same rehearsal as an unknown address (docs/http-api.md, "Single sign-on (OpenID Connect) per tenant").
    // A deactivated account gets none either: it signs in no more, by any way.
    const user = found && (!isActive(found) || (await heldToSso(stores, found))) ? null : found;
    await writeReset(user, user?.email ?? email, context, heldId);
    // No wake(): the pass that processed this request delivers the email too.
  }
  const held = createDeferredRequests<{ email: string; context: RequestContext; heldId: string }>(
    'password reset email',
    ({ email, context, heldId }) => sendReset(email, context, heldId),
    logger,
  );
  // The durable copy of a request whose instance died before processing it (a crash, a kill): run by the
  // delivery pass that claims it, minutes later.
  mail?.onHeldRequest('password_reset', ({ id, to, data }) =>
    sendReset(to, (data.context ?? {}) as RequestContext, id),
  );

  return {
    /**
     * Answers at once, the same way whether or not the address has an account: it only holds the address
     * (in memory, and durably as an outbox row not due for minutes), and the lookup, the token and the
     * email happen on the delivery worker's next timer pass, so neither the answer, nor its timing, nor the
     * timing of the requests after it tells them apart. Should the instance die first, any instance's
     * delivery runs the request once its row is due.
     */
    async forgotPassword(input: { email: string }, context: RequestContext = {}): Promise<void> {
      const email = parseEmail(input?.email);
      if (!email.ok) throw validationError([email.error]);
      if (!mail) throw mailUnavailable();
      const kept = heldContext(context);
      const { network } = clientKeys(context.ipAddress ?? '');
      // A request the caps drop is dropped whole: no durable copy of it may run later. Checked before
      // writing (the same for every address: the caps know no address), and again once written.
      if (!held.hasRoom(network)) {
        held.hold({ email: email.email, context: kept, heldId: '' }, network); // logs the drop
        return;
      }
      // Held in the database too (the same write for every address), so a crash loses no request; the
      // copy in memory is what this instance's timer passes process.
      const heldId = await mail.holdRequest('password_reset', email.email, { context: kept });
      if (!held.hold({ email: email.email, context: kept, heldId }, network))
        await stores.outbox.complete(heldId);
    },

    /** Processes the held "forgot password" requests (the delivery worker's timer, `deliverMail`, `whenIdle`). */
    processHeld: () => held.process(),
  };
}

/** Resetting the password with the link of a reset email. */
function createPasswordReset(services: Services) {
  const { stores, events, clock, hasher, policy, cache } = services;

  return {
    async resetPassword(input: ResetPasswordInput, context: RequestContext = {}): Promise<void> {
      const hash = hashOneTimeToken(input?.token);
      const password = requiredText(input?.password, 'password');
      if (hash === null) throw invalidOrExpired();
      const issued = await stores.oneTimeTokens.find('password_reset', hash, clock.now());
      const user = issued?.userId ? await stores.users.findById(issued.tenantId, issued.userId) : null;
      // A link sent to an address the account no longer has proves nothing about the current one.
      if (!issued || !user || user.email !== issued.email) throw invalidOrExpired();
      // A link issued before the tenant enforced SSO no longer sets a password.
      await assertNotHeldToSso(stores, user);
      // A link issued before a deactivation sets no password after it.
      assertActive(user);
      const tenant = await stores.tenants.findById(user.tenantId);
      const problems = policy.check(password, {
        email: user.email,
        tenantName: tenant?.name ?? '',
        tenantSlug: slugify(tenant?.name ?? ''),
      });
      if (problems.length > 0) throw validationError(problems);
      const passwordHash = await hasher.hash(password, hashingOwner(context.ipAddress));
      await events.transaction(async (tx, record) => {
        if (!(await tx.oneTimeTokens.consume('password_reset', hash, clock.now()))) throw invalidOrExpired();
        await assertStillActive(tx, user);
        await tx.users.setPasswordHash(user.tenantId, user.id, passwordHash);
        // The link reached the address: it is verified.
        await tx.users.markEmailVerified(user.tenantId, user.id);
        // Whoever knew the old password is out, on every device, and so is any change of address
        // they asked for: a pending email change would otherwise hand them the account back.
        await tx.sessions.revokeAllForUser(user.tenantId, user.id, clock.now());
        await tx.oneTimeTokens.revokeForUser(user.tenantId, user.id, 'email_change');
        const parties = { tenantId: user.tenantId, actorId: null, subjectId: user.id, sessionId: null };
        await record({ type: 'password_reset', ...events.base(parties, context) });
      });
      cache.forgetAll();
    },
  };
}

/** Changing the password from a session, with the current one. */
function createPasswordChange(services: Services, confirmPassword: ConfirmPassword) {
  const { stores, events, clock, hasher, policy, cache } = services;

  return {
    async changePassword(
      claims: AccessClaims,
      input: ChangePasswordInput,
      context: RequestContext = {},
    ): Promise<void> {
      const current = requiredText(input?.currentPassword, 'currentPassword');
      const next = requiredText(input?.newPassword, 'newPassword');
      // A recent authentication (docs/http-api.md, "Rules that change in 1.3"), then the password.
      const user = await services.requireRecent(claims);
      await confirmPassword(user, current, 'currentPassword', context);
      const tenant = await stores.tenants.findById(user.tenantId);
      const problems = policy
        .check(next, {
          email: user.email,
          tenantName: tenant?.name ?? '',
          tenantSlug: slugify(tenant?.name ?? ''),
        })
        .map((e) => ({ ...e, field: 'newPassword' }));
      if (problems.length > 0) throw validationError(problems);
      const passwordHash = await hasher.hash(next, hashingOwner(context.ipAddress));
      await events.transaction(async (tx, record) => {
        await tx.users.setPasswordHash(user.tenantId, user.id, passwordHash);
        await tx.sessions.revokeAllForUser(user.tenantId, user.id, clock.now(), {
          exceptSessionId: claims.sessionId,
        });
        // A reset link sent before the change must not undo it, nor an email change asked for with the
        // old password.
        await tx.oneTimeTokens.revokeForUser(user.tenantId, user.id, 'password_reset');
        await tx.oneTimeTokens.revokeForUser(user.tenantId, user.id, 'email_change');
        const parties = {
          tenantId: user.tenantId,
          actorId: user.id,
          subjectId: user.id,
          sessionId: claims.sessionId,
        };
        await record({ type: 'password_changed', ...events.base(parties, context) });
      });
      cache.forgetAll();
    },
  };
}
