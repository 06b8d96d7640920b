import { createAccountDeletion } from './accounts/account-deletion.js';
import { createEmailAddress } from './accounts/email-address.js';
import { TENANT_NAME_MAX_LENGTH } from './accounts/inputs.js';
import { createLogin, LOGIN_FIELD_MAX_LENGTH } from './accounts/login.js';
import { createPasswordConfirmation } from './accounts/password-confirmation.js';
import { createPasswordRecovery } from './accounts/password-recovery.js';
import { createRegistration } from './accounts/registration.js';
import { createTenantReads } from './accounts/tenant-reads.js';
import { createAuditLog } from './audit/audit-log.js';
import { actingUser, currentUser, memberOf } from './authorization.js';
import type { AccessClaims } from './claims.js';
import { type CleanupResult, cleanUp, realPacing } from './cleanup.js';
import { DEVICE_INFO_MAX_LENGTH } from './device-info.js';
import { EMAIL_MAX_LENGTH } from './email.js';
import { configurationError } from './errors.js';
import type { FacadeServices } from './facade-services.js';
import { createInvitations } from './members/invitations.js';
import { createMembers } from './members/members.js';
import { atLeast, type Role } from './members/roles.js';
import type { RateLimitBudget } from './rate-limit/rate-limit-result.js';
import type { Member } from './records.js';
import { createRotation } from './sessions/rotation.js';
import { createSessionAccess } from './sessions/session-access.js';
import type { TenantAuth } from './tenant-auth.js';

/** @internal The account use cases, and the held "forgot password" requests they leave to process. */
export function accountsPart({ resolved, instrumentation, services, dummyHash }: FacadeServices) {
  const confirmPassword = createPasswordConfirmation(services);
  const { stores, hasher, policy, sessionTokens, clock, random, events, mail, limits, background } = services;
  const recovery = createPasswordRecovery(services, confirmPassword);
  // Held "forgot password" requests are processed on the delivery worker's timer passes only.
  mail?.onScheduledPass(recovery.processHeld);
  const emailAddress = createEmailAddress(services, confirmPassword);
  const register = createRegistration({
    stores,
    hasher,
    policy,
    sessionTokens,
    clock,
    random,
    events,
    enqueueVerification: emailAddress.enqueueVerification,
    wakeMail: () => mail?.wake(),
  });
  const login = createLogin({
    stores,
    hasher,
    sessionTokens,
    dummyHash,
    throttle: limits?.loginThrottle,
    events,
    background,
    logger: resolved.logger,
    secondFactor: services.secondFactor,
  });
  const part: Pick<
    TenantAuth,
    | 'inputLimits'
    | 'register'
    | 'login'
    | 'forgotPassword'
    | 'resetPassword'
    | 'changePassword'
    | 'requestEmailVerification'
    | 'verifyEmail'
    | 'changeEmail'
    | 'confirmEmailChange'
    | 'deleteAccount'
  > = {
    inputLimits: {
      emailMaxLength: EMAIL_MAX_LENGTH,
      passwordMinLength: policy.minLength,
      passwordMaxLength: policy.maxLength,
      tenantNameMaxLength: TENANT_NAME_MAX_LENGTH,
      deviceInfoMaxLength: DEVICE_INFO_MAX_LENGTH,
      loginFieldMaxLength: LOGIN_FIELD_MAX_LENGTH,
    },
    register: (input, context) =>
      instrumentation.span('tenant-auth.register', () => register(input, context)),
    login: (input, context) => instrumentation.span('tenant-auth.login', () => login(input, context)),
    forgotPassword: recovery.forgot,
    resetPassword: recovery.reset,
    changePassword: recovery.change,
    requestEmailVerification: emailAddress.requestVerification,
    verifyEmail: emailAddress.verify,
    changeEmail: emailAddress.change,
    confirmEmailChange: emailAddress.confirmChange,
    deleteAccount: createAccountDeletion(services, confirmPassword),
  };
  return { part, processHeld: recovery.processHeld };
}

/** @internal Sessions, tokens, tenant reads, rate limits and authorization. */
export function sessionsPart({
  resolved,
  instrumentation,
  tokens,
  services,
}: FacadeServices): Pick<
  TenantAuth,
  | 'refresh'
  | 'logout'
  | 'verifyAccessToken'
  | 'listSessions'
  | 'revokeSession'
  | 'revokeAllSessions'
  | 'getTenant'
  | 'getMyTenant'
  | 'jwks'
  | 'rateLimit'
> & { authorize(claims: AccessClaims, minimum: Role): Promise<Member> } {
  const { stores, sessionTokens, cache, clock, events, limits } = services;
  const sessionAccess = createSessionAccess({ stores, tokens, cache, clock, events });
  const tenantReads = createTenantReads(stores.tenants);
  const refresh = createRotation({
    stores,
    tokens,
    sessionTokens,
    cache,
    clock,
    events,
    reuseGraceSeconds: resolved.refreshReuseGraceSeconds,
  });
  return {
    refresh: (token, context) => instrumentation.span('tenant-auth.refresh', () => refresh(token, context)),
    logout: sessionAccess.logout,
    verifyAccessToken(token) {
      // The common case answers without an asynchronous turn of its own: a token verified before, and
      // no per-request session check.
      if (!resolved.sessionCheck) {
        try {
          const known = tokens.verifiedAccessClaims(token);
          if (known) return Promise.resolve(known);
        } catch (err) {
          return Promise.reject(err);
        }
      }
      return tokens.verifyAccessToken(token).then(async (claims) => {
        await cache.assertActive(claims);
        return claims;
      });
    },
    listSessions: sessionAccess.list,
    revokeSession: sessionAccess.revokeOne,
    revokeAllSessions: sessionAccess.revokeAll,
    getTenant: tenantReads.getTenant,
    getMyTenant: tenantReads.getMyTenant,
    jwks: () => tokens.jwks(),
    async rateLimit(budget, context, apiKey) {
      if (!limits) return null;
      try {
        return await limits.consume(budget, context, apiKey?.apiKeyId);
      } catch (err) {
        const refused = (err as { rateLimit?: { budget: RateLimitBudget } }).rateLimit;
        if (refused)
          events.emit({ type: 'rate_limited', budget: refused.budget, ...events.unattributed(context) });
        throw err;
      }
    },
    // Administration needs a live session (API.md 1.2); what any member may do keeps the 1.0 rule.
    authorize: async (claims: AccessClaims, minimum: Role) =>
      memberOf(
        atLeast(minimum, 'admin')
          ? await actingUser(stores, claims, clock.now(), minimum)
          : await currentUser(stores, claims, minimum),
      ),
  };
}

/** @internal Members, invitations and the audit log of a tenant. */
export function membersPart({
  services,
}: FacadeServices): Pick<
  TenantAuth,
  | 'listMembers'
  | 'changeMemberRole'
  | 'removeMember'
  | 'createInvitation'
  | 'listInvitations'
  | 'revokeInvitation'
  | 'acceptInvitation'
  | 'listAuditEvents'
> {
  const members = createMembers(services);
  const invitations = createInvitations(services);
  return {
    listMembers: members.list,
    changeMemberRole: members.changeRole,
    removeMember: members.remove,
    createInvitation: invitations.create,
    listInvitations: invitations.list,
    revokeInvitation: invitations.revoke,
    acceptInvitation: invitations.accept,
    listAuditEvents: createAuditLog(services),
  };
}

/** @internal Mail delivery, background work, statistics and cleanup. */
export function operationsPart(
  { resolved, services }: FacadeServices,
  processHeld: () => Promise<unknown>,
): Pick<
  TenantAuth,
  'deliverMail' | 'startMailDelivery' | 'outboxCounts' | 'whenIdle' | 'stats' | 'cleanup' | 'startCleanup'
> {
  const { stores, clock, logger, mail, background, hasher } = services;
  // The pass in flight, and what ends it: a scheduled cleanup's stop() aborts it (no further batch starts).
  let running: { result: Promise<CleanupResult>; abort: AbortController } | undefined;
  const cleanup = () => {
    if (!running) {
      const abort = new AbortController();
      const result = cleanUp(
        stores,
        clock,
        {
          revokedRetentionSeconds: resolved.revokedSessionRetentionSeconds,
          auditRetentionSeconds: resolved.auditRetentionSeconds,
          batchSize: resolved.cleanupBatchSize,
        },
        realPacing(abort.signal),
      ).finally(() => {
        running = undefined;
      });
      running = { result, abort };
    }
    return running.result;
  };
  return {
    async deliverMail() {
      if (!mail) return { delivered: 0, retried: 0, dead: 0 };
      await processHeld();
      return mail.deliver();
    },
    startMailDelivery({ intervalSeconds = 5 } = {}) {
      if (!mail)
        throw configurationError(
          'startMailDelivery',
          'mail',
          'is not configured (the mail option of createTenantAuth)',
        );
      if (!Number.isSafeInteger(intervalSeconds) || intervalSeconds < 1) {
        throw configurationError('startMailDelivery', 'intervalSeconds', 'must be a positive integer');
      }
      return mail.start(intervalSeconds);
    },
    outboxCounts: () => stores.outbox.counts(),
    async whenIdle() {
      await background.whenIdle();
      await processHeld();
    },
    stats: () => ({ hashing: hasher.stats() }),
    cleanup,
    startCleanup({ intervalSeconds = 600 } = {}) {
      if (!Number.isSafeInteger(intervalSeconds) || intervalSeconds < 1) {
        throw configurationError('startCleanup', 'intervalSeconds', 'must be a positive integer');
      }
      const timer = setInterval(() => {
        cleanup().catch((err: unknown) => logger.warn({ err }, 'tenant-auth: scheduled cleanup failed'));
      }, intervalSeconds * 1000);
      timer.unref();
      return {
        async stop() {
          clearInterval(timer);
          running?.abort.abort();
          await running?.result.catch(() => {});
        },
      };
    },
  };
}
