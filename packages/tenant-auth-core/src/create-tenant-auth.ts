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
import { createBackground } from './background.js';
import { type CleanupResult, cleanUp, realPacing } from './cleanup.js';
import { DEVICE_INFO_MAX_LENGTH } from './device-info.js';
import { EMAIL_MAX_LENGTH } from './email.js';
import { configurationError } from './errors.js';
import { createEventLog } from './events/event-log.js';
import { resolveInstrumentation } from './instrumentation.js';
import { createMailOutbox, type MailOutbox } from './mail/mail-outbox.js';
import { mailSealOn } from './mail/sealing.js';
import { createInvitations } from './members/invitations.js';
import { createMembers } from './members/members.js';
import { atLeast } from './members/roles.js';
import { createMfa } from './mfa/mfa.js';
import { createSecondFactorGate } from './mfa/second-factor-gate.js';
import { type ResolvedOptions, resolveOptions, type TenantAuthOptions } from './options.js';
import { createPasswordHasher, type PasswordHasher } from './passwords/hasher.js';
import { createPasswordPolicy } from './passwords/policy.js';
import { MemoryRateLimitStore } from './rate-limit/memory-rate-limit-store.js';
import type { RateLimitBudget } from './rate-limit/rate-limit-result.js';
import { createRequestLimits } from './rate-limit/request-limits.js';
import { createDataSealer, derivedDataKey } from './sealing/data-key.js';
import type { Services } from './services.js';
import { createActiveSessionCache } from './sessions/active-session-cache.js';
import { createRotation } from './sessions/rotation.js';
import { createSessionAccess } from './sessions/session-access.js';
import { createSessionTokens } from './sessions/session-tokens.js';
import type { TenantAuth } from './tenant-auth.js';
import { createOneTimeTokens } from './tokens/one-time-tokens.js';
import { createTokenService } from './tokens/token-service.js';

/** A bcrypt hash at the configured cost, so an unknown email costs the same compare as a known one. */
function dummyHashOf(hasher: PasswordHasher, options: ResolvedOptions): () => Promise<string> {
  let dummy: Promise<string> | undefined;
  return () => {
    if (dummy) return dummy;
    const pending = hasher.hash(Buffer.from(options.random(32)).toString('base64url'));
    dummy = pending;
    pending.catch(() => {
      if (dummy === pending) dummy = undefined;
    });
    return pending;
  };
}

/** Says once, at creation, how requests are rate limited. */
function describeRateLimits(options: ResolvedOptions): void {
  const { rateLimit, logger } = options;
  const isDefault = rateLimit?.store === undefined;
  if (!rateLimit) {
    logger.warn({ rateLimit: false }, 'tenant-auth: rate limiting is off (rateLimit: false)');
    return;
  }
  const { windowSeconds: w, strict, general, account } = rateLimit;
  logger.info(
    {
      rateLimit: {
        windowSeconds: w,
        strict,
        general,
        account,
        store: isDefault ? 'memory' : (rateLimit.store?.name ?? 'custom'),
      },
    },
    isDefault
      ? `tenant-auth: rate limits on an in-memory store (this process only; pass rateLimit.store to share them between instances): ${strict}/${w}s per client on credential routes, ${general}/${w}s elsewhere, ${account}/${w}s login attempts per account`
      : `tenant-auth: rate limits on the given store (${rateLimit.store?.name ?? 'custom'}): ${strict}/${w}s per client on credential routes, ${general}/${w}s elsewhere, ${account}/${w}s login attempts per account`,
  );
}

/**
 * Composes the services of tenant-auth: registration, login, refresh rotation, logout, sessions,
 * tenant reads, JWKS, rate limits and cleanup. Every option is validated here, before any I/O; a bad
 * one throws `TenantAuthError` with code `invalid_configuration` naming it.
 *
 * @example
 * const auth = createTenantAuth({
 *   stores: createMemoryStores(),
 *   accessToken: { secret: process.env.JWT_SECRET! },
 *   refreshSecret: process.env.JWT_REFRESH_SECRET!,
 * });
 * const { accessToken } = await auth.register({ email: 'ada@example.com', password: 'Correct-Horse-42' });
 * const claims = await auth.verifyAccessToken(accessToken);
 */
export function createTenantAuth(options: TenantAuthOptions): TenantAuth {
  const resolved = resolveOptions(options);
  const { stores, clock, random, logger } = resolved;
  const instrumentation = resolveInstrumentation(resolved.instrumentation);
  const events = createEventLog({ stores, clock, random, logger, onEvent: resolved.onEvent });
  const tokens = createTokenService({
    issuer: resolved.issuer,
    audience: resolved.audience,
    accessToken: resolved.accessToken,
    refreshSecret: resolved.refreshSecret,
    accessTokenTtlSeconds: resolved.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: resolved.refreshTokenTtlSeconds,
    clock,
    random,
  });
  const hasher = createPasswordHasher(resolved.passwordHashing, instrumentation);
  const policy = createPasswordPolicy(resolved.passwordPolicy);
  describeRateLimits(resolved);
  // Last, once every option is known good: the default store starts a (unref'd) sweep timer.
  const limits = resolved.rateLimit
    ? createRequestLimits(
        { ...resolved.rateLimit, store: resolved.rateLimit.store ?? new MemoryRateLimitStore() },
        clock,
        logger,
      )
    : undefined;
  // Made now, at start-up: the first login for an unknown email must not pay for a second hash.
  const dummyHash = dummyHashOf(hasher, resolved);
  dummyHash().catch((err: unknown) =>
    logger.warn({ err }, 'tenant-auth: the dummy password hash failed; retrying on first use'),
  );

  // The refresh secret's key opens what 1.1 sealed, and seals when no data keys are given (id `r0`).
  const derived = derivedDataKey(
    typeof resolved.refreshSecret === 'string'
      ? Buffer.from(resolved.refreshSecret, 'utf8')
      : resolved.refreshSecret,
  );
  const sealer = createDataSealer(resolved.dataKeys ?? { current: derived }, derived, random);
  const secondFactor = createSecondFactorGate({ stores, clock, random });
  const sessionTokens = createSessionTokens({
    tokens,
    clock,
    random,
    absoluteTtlSeconds: resolved.sessionAbsoluteTtlSeconds,
  });
  const cache = createActiveSessionCache(stores.sessions, clock, resolved.sessionCheck);
  const sessionAccess = createSessionAccess({ stores, tokens, cache, clock, events });
  const tenantReads = createTenantReads(stores.tenants);
  const background = createBackground(logger);
  const mail: MailOutbox | undefined = resolved.mail
    ? createMailOutbox({
        settings: resolved.mail,
        seal: mailSealOn(sealer),
        stores,
        clock,
        random,
        logger,
        onDelivery: instrumentation.onMailDelivery,
      })
    : undefined;
  const services: Services = {
    stores,
    clock,
    random,
    logger,
    events,
    hasher,
    policy,
    sessionTokens,
    cache,
    oneTimeTokens: createOneTimeTokens(clock, random),
    mail,
    limits,
    background,
    invitationTtlSeconds: resolved.invitationTtlSeconds,
    sealer,
    secondFactor,
    reauthMaxAgeSeconds: resolved.reauthMaxAgeSeconds,
    totpIssuer: resolved.totpIssuer,
  };
  const confirmPassword = createPasswordConfirmation(services);
  const members = createMembers(services);
  const invitations = createInvitations(services);
  const recovery = createPasswordRecovery(services, confirmPassword);
  // Held "forgot password" requests are processed on the delivery worker's timer passes only.
  mail?.onScheduledPass(recovery.processHeld);
  const emailAddress = createEmailAddress(services, confirmPassword);
  const mfa = createMfa(services);

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
    logger,
    secondFactor,
  });
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
    refresh: (token, context) => instrumentation.span('tenant-auth.refresh', () => refresh(token, context)),
    ...mfa,
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
    async rateLimit(budget, context) {
      if (!limits) return null;
      try {
        return await limits.consume(budget, context);
      } catch (err) {
        const refused = (err as { rateLimit?: { budget: RateLimitBudget } }).rateLimit;
        if (refused)
          events.emit({ type: 'rate_limited', budget: refused.budget, ...events.unattributed(context) });
        throw err;
      }
    },
    // Administration needs a live session (API.md 1.2); what any member may do keeps the 1.0 rule.
    authorize: async (claims, minimum) =>
      memberOf(
        atLeast(minimum, 'admin')
          ? await actingUser(stores, claims, clock.now(), minimum)
          : await currentUser(stores, claims, minimum),
      ),
    listMembers: members.list,
    changeMemberRole: members.changeRole,
    removeMember: members.remove,
    createInvitation: invitations.create,
    listInvitations: invitations.list,
    revokeInvitation: invitations.revoke,
    acceptInvitation: invitations.accept,
    forgotPassword: recovery.forgot,
    resetPassword: recovery.reset,
    changePassword: recovery.change,
    requestEmailVerification: emailAddress.requestVerification,
    verifyEmail: emailAddress.verify,
    changeEmail: emailAddress.change,
    confirmEmailChange: emailAddress.confirmChange,
    deleteAccount: createAccountDeletion(services, confirmPassword),
    listAuditEvents: createAuditLog(services),
    async deliverMail() {
      if (!mail) return { delivered: 0, retried: 0, dead: 0 };
      await recovery.processHeld();
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
      await recovery.processHeld();
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
