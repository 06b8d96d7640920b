import { actingUser } from '../../mechanisms/authorization.js';
import { parseEmail } from '../../mechanisms/inputs/email.js';
import { requiredText } from '../../mechanisms/inputs/inputs.js';
import type { Services } from '../../mechanisms/services.js';
import {
  assertNotHeldToSso,
  heldToSso,
  revokeSessionsSsoDidNotMake,
  ssoRequired,
} from '../../mechanisms/sso/sso-hold.js';
import { FIXED_LIFETIMES, hashOneTimeToken, LINK_PATHS } from '../../mechanisms/tokens/one-time-tokens.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import {
  invalidOrExpired,
  isTenantAuthError,
  mailUnavailable,
  validationError,
} from '../../vocabulary/errors.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import type { ConfirmPassword } from './password-confirmation.js';

/**
 * Input of `TenantAuth.changeEmail`.
 *
 * @example
 * const input: ChangeEmailInput = { newEmail: 'ada@new.example', password };
 */
export interface ChangeEmailInput {
  newEmail: string;
  /** The current password: an email change is as good as a password reset, so it needs one. */
  password: string;
}

const emailTaken = (field: string) =>
  validationError([{ field, code: 'email_taken', message: 'This email is already registered.' }]);

/** Whether an email to `email` fits its mailbox budget (always, with rate limiting off). */
type MailboxAllows = (email: string, context: RequestContext) => Promise<boolean>;

/** @internal Verification of the address, and changing it. */
export function createEmailAddress(services: Services, confirmPassword: ConfirmPassword) {
  const { limits } = services;
  const mailboxAllows: MailboxAllows = async (email, context) =>
    (await limits?.mailbox(email, context))?.allowed ?? true;

  return {
    ...createVerification(services, mailboxAllows),
    ...createEmailChange(services, confirmPassword, mailboxAllows),
  };
}

/** Verifying the address: the email that asks for it (at registration and on request), and its link. */
function createVerification(services: Services, mailboxAllows: MailboxAllows) {
  const { stores, events, clock, oneTimeTokens, mail } = services;

  /**
   * Issues a verification token and writes its email, through the caller's transaction. Used by
   * registration and by {@link requestVerification}. Does nothing without mail.
   */
  async function enqueueVerification(
    tx: CompleteTransactionStores,
    user: UserRecord,
    tenantName: string,
    context: RequestContext,
  ): Promise<boolean> {
    if (!mail) return false;
    // Registration sends one too: register and delete over and over must not flood the address.
    if (!(await mailboxAllows(user.email, context))) return false;
    const { token } = await oneTimeTokens.issue(tx, {
      kind: 'email_verification',
      tenantId: user.tenantId,
      userId: user.id,
      email: user.email,
      lifetimeSeconds: FIXED_LIFETIMES.email_verification,
    });
    await mail.enqueue(tx, {
      template: 'email_verification',
      to: user.email,
      tenantId: user.tenantId,
      data: {
        link: mail.link(LINK_PATHS.email_verification, token),
        lifetimeSeconds: FIXED_LIFETIMES.email_verification,
        tenantName,
      },
    });
    return true;
  }

  return {
    enqueueVerification,

    async requestEmailVerification(claims: AccessClaims, context: RequestContext = {}): Promise<void> {
      // It sends an email on the account's behalf: a revoked session may not (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)").
      const user = await actingUser(stores, claims, clock.now());
      if (user.emailVerified) return;
      if (!mail) throw mailUnavailable();
      await stores.transaction(async (tx) => {
        const tenant = await tx.tenants.findById(user.tenantId);
        await enqueueVerification(tx, user, tenant?.name ?? '', context);
      });
      mail.wake();
    },

    async verifyEmail(input: { token: string }, context: RequestContext = {}): Promise<void> {
      const hash = hashOneTimeToken(input?.token);
      if (hash === null) throw invalidOrExpired();
      await events.transaction(async (tx, record) => {
        const issued = await tx.oneTimeTokens.consume('email_verification', hash, clock.now());
        const user = issued?.userId ? await tx.users.findById(issued.tenantId, issued.userId) : null;
        // A token for an address the account no longer has proves nothing about the current one.
        if (!issued || !user || user.email !== issued.email) throw invalidOrExpired();
        if (user.emailVerified) return;
        await tx.users.markEmailVerified(user.tenantId, user.id);
        const parties = { tenantId: user.tenantId, actorId: null, subjectId: user.id, sessionId: null };
        await record({ type: 'email_verified', ...events.base(parties, context) });
      });
    },
  };
}

/**
 * Changing the address: the request (a link to the new address, a notice to the old one) and its
 * confirmation.
 */
function createEmailChange(
  services: Services,
  confirmPassword: ConfirmPassword,
  mailboxAllows: MailboxAllows,
) {
  const { stores, events, clock, oneTimeTokens, mail, cache } = services;

  return {
    async changeEmail(
      claims: AccessClaims,
      input: ChangeEmailInput,
      context: RequestContext = {},
    ): Promise<void> {
      const newEmail = parseEmail(input?.newEmail);
      const password = requiredText(input?.password, 'password');
      if (!newEmail.ok) throw validationError([{ ...newEmail.error, field: 'newEmail' }]);
      // A recent authentication (docs/http-api.md, "Rules that change in 1.3"), then the password.
      const user = await services.requireRecent(claims);
      await confirmPassword(user, password, 'password', context);
      // A user held to SSO would leave its verified domain, and the hold, with a password it still knows.
      await assertNotHeldToSso(stores, user);
      if (newEmail.email === user.email || (await stores.users.findByEmail(newEmail.email))) {
        throw emailTaken('newEmail');
      }
      if (!mail) throw mailUnavailable();
      // Two emails, each charged to its own mailbox. The notice is what tells the owner of a hijacked
      // session, so without room for it nothing is sent: the change needs both (answered as usual).
      if (!(await mailboxAllows(newEmail.email, context))) return;
      if (!(await mailboxAllows(user.email, context))) return;
      await stores.transaction(async (tx) => {
        const tenant = await tx.tenants.findById(user.tenantId);
        const tenantName = tenant?.name ?? '';
        const { token } = await oneTimeTokens.issue(tx, {
          kind: 'email_change',
          tenantId: user.tenantId,
          userId: user.id,
          email: newEmail.email,
          sessionId: claims.sessionId,
          lifetimeSeconds: FIXED_LIFETIMES.email_change,
        });
        await mail.enqueue(tx, {
          template: 'email_change',
          to: newEmail.email,
          tenantId: user.tenantId,
          data: {
            link: mail.link(LINK_PATHS.email_change, token),
            lifetimeSeconds: FIXED_LIFETIMES.email_change,
            tenantName,
            newEmail: newEmail.email,
          },
        });
        // The old address hears of it, so a hijacked session cannot move the account away unnoticed.
        await mail.enqueue(tx, {
          template: 'email_change_notice',
          to: user.email,
          tenantId: user.tenantId,
          data: { tenantName, newEmail: newEmail.email },
        });
      });
      mail.wake();
    },

    async confirmEmailChange(input: { token: string }, context: RequestContext = {}): Promise<void> {
      const hash = hashOneTimeToken(input?.token);
      if (hash === null) throw invalidOrExpired();
      try {
        await events.transaction(async (tx, record) => {
          const now = clock.now();
          const issued = await tx.oneTimeTokens.consume('email_change', hash, now);
          const user = issued?.userId ? await tx.users.findById(issued.tenantId, issued.userId) : null;
          if (!issued || !user) throw invalidOrExpired();
          // The change is only as good as the session that asked for it: once that session is logged
          // out, revoked (all sessions, a reset, a replay) or expired, its pending change is void.
          const asking = issued.sessionId
            ? await tx.sessions.findById(issued.tenantId, issued.sessionId)
            : null;
          if (!asking || asking.userId !== user.id || asking.revokedAt !== null || asking.expiresAt <= now) {
            throw invalidOrExpired();
          }
          // Asked before `enforce` (from an SSO session, which enforcing keeps): still no way out of the hold.
          if (await heldToSso(tx, user)) throw ssoRequired();
          await tx.users.changeEmail(user.tenantId, user.id, issued.email);
          await tx.sessions.revokeAllForUser(
            user.tenantId,
            user.id,
            clock.now(),
            issued.sessionId ? { exceptSessionId: issued.sessionId } : {},
          );
          // A new address in a domain its tenant enforces SSO for holds the user: the asking session
          // too ends unless SSO made it (docs/http-api.md, "Rules that change in 1.3").
          if (await heldToSso(tx, { ...user, email: issued.email }))
            await revokeSessionsSsoDidNotMake(tx, user, clock.now());
          // Links sent to the old address stop working.
          await tx.oneTimeTokens.revokeForUser(user.tenantId, user.id, 'password_reset');
          await tx.oneTimeTokens.revokeForUser(user.tenantId, user.id, 'email_verification');
          const parties = {
            tenantId: user.tenantId,
            actorId: null,
            subjectId: user.id,
            sessionId: issued.sessionId,
          };
          await record({ type: 'email_changed', ...events.base(parties, context) });
        });
      } catch (err) {
        // Taken meanwhile: the transaction rolled back, the old address stays and the link still works.
        if (isTenantAuthError(err, 'email_taken')) throw emailTaken('token');
        throw err;
      }
      cache.forgetAll();
    },
  };
}
