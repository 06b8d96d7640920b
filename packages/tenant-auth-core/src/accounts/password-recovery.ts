import { actingUser } from '../authorization.js';
import type { AccessClaims } from '../claims.js';
import { cleanText, IP_ADDRESS_MAX_LENGTH, USER_AGENT_MAX_LENGTH } from '../device-info.js';
import { parseEmail } from '../email.js';
import { invalidOrExpired, mailUnavailable, validationError } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { createDeferredRequests, type DeferredRequests } from '../mail/deferred-requests.js';
import { clientKeys, hashingOwner } from '../rate-limit/client-ip-key.js';
import type { RequestContext } from '../records.js';
import type { Services } from '../services.js';
import { slugify } from '../slug.js';
import { assertNotHeldToSso, heldToSso } from '../sso/sso-hold.js';
import { FIXED_LIFETIMES, hashOneTimeToken, LINK_PATHS } from '../tokens/one-time-tokens.js';
import { requiredText } from './inputs.js';
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
  ): Promise<void> {
    const work = events.transaction(async (tx, record) => {
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
      if (err !== REHEARSAL) throw err;
    });
  }

  /**
   * The half of "forgot" that depends on whether the account exists: run by the mail delivery worker's
   * timer (see {@link DeferredRequests}), never from the request nor right after it.
   */
  async function sendReset(email: string, context: RequestContext): Promise<void> {
    if (!mail) return;
    const budget = await limits?.mailbox(email, context);
    if (budget && !budget.allowed) return;
    const found = await stores.users.findByEmail(email);
    // A user held to SSO gets no reset email: the same rehearsal as an unknown address (API.md 1.2).
    const user = found && (await heldToSso(stores, found)) ? null : found;
    await writeReset(user, user?.email ?? email, context);
    // No wake(): the pass that processed this request delivers the email too.
  }
  const held = createDeferredRequests<{ email: string; context: RequestContext }>(
    'password reset email',
    ({ email, context }) => sendReset(email, context),
    logger,
  );

  return {
    /**
     * Answers at once, the same way whether or not the address has an account: it only holds the address,
     * and the lookup, the token and the email happen on the delivery worker's next timer pass, so neither
     * the answer, nor its timing, nor the timing of the requests after it tells them apart.
     */
    async forgot(input: { email: string }, context: RequestContext = {}): Promise<void> {
      const email = parseEmail(input?.email);
      if (!email.ok) throw validationError([email.error]);
      if (!mail) throw mailUnavailable();
      held.hold(
        { email: email.email, context: heldContext(context) },
        clientKeys(context.ipAddress ?? '').network,
      );
    },

    /** Processes the held "forgot password" requests (the delivery worker's timer, `deliverMail`, `whenIdle`). */
    processHeld: () => held.process(),
  };
}

/** Resetting the password with the link of a reset email. */
function createPasswordReset(services: Services) {
  const { stores, events, clock, hasher, policy, cache } = services;

  return {
    async reset(input: ResetPasswordInput, context: RequestContext = {}): Promise<void> {
      const hash = hashOneTimeToken(input?.token);
      const password = requiredText(input?.password, 'password');
      if (hash === null) throw invalidOrExpired();
      const issued = await stores.oneTimeTokens.find('password_reset', hash, clock.now());
      const user = issued?.userId ? await stores.users.findById(issued.tenantId, issued.userId) : null;
      // A link sent to an address the account no longer has proves nothing about the current one.
      if (!issued || !user || user.email !== issued.email) throw invalidOrExpired();
      // A link issued before the tenant enforced SSO no longer sets a password.
      await assertNotHeldToSso(stores, user);
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
    async change(
      claims: AccessClaims,
      input: ChangePasswordInput,
      context: RequestContext = {},
    ): Promise<void> {
      const current = requiredText(input?.currentPassword, 'currentPassword');
      const next = requiredText(input?.newPassword, 'newPassword');
      const user = await actingUser(stores, claims, clock.now());
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
