import { createApiKeyRevocations } from '../mechanisms/api-key-revocations.js';
import { createBackground } from '../mechanisms/background.js';
import { createEventLog } from '../mechanisms/events/event-log.js';
import { createMailOutbox, type MailOutbox } from '../mechanisms/mail/mail-outbox.js';
import { mailSealOn } from '../mechanisms/mail/sealing.js';
import { createPasswordHasher, type PasswordHasher } from '../mechanisms/passwords/hasher.js';
import { createPasswordPolicy } from '../mechanisms/passwords/policy.js';
import { createRequestLimits } from '../mechanisms/rate-limit/request-limits.js';
import { createRecentAuth } from '../mechanisms/recent-auth.js';
import { createDataSealer, derivedDataKey } from '../mechanisms/sealing/data-key.js';
import { createFactorLock } from '../mechanisms/second-factor/factor-lock.js';
import { createSecondFactorGate } from '../mechanisms/second-factor/second-factor-gate.js';
import type { Services } from '../mechanisms/services.js';
import { createActiveSessionCache } from '../mechanisms/sessions/active-session-cache.js';
import { createSessionTokens } from '../mechanisms/sessions/session-tokens.js';
import { createOneTimeTokens } from '../mechanisms/tokens/one-time-tokens.js';
import { createTokenService } from '../mechanisms/tokens/token-service.js';
import { createPasskeyCeremonies } from '../mechanisms/webauthn/passkey-ceremonies.js';
import { MemoryRateLimitStore } from '../memory/memory-rate-limit-store.js';
import { resolveInstrumentation } from '../ports/instrumentation.js';
import { standInStores } from './complete-stores.js';
import type { ResolvedOptions } from './options.js';

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

/** @internal Builds the services every use case shares, from options already resolved (checked). */
export function composeServices(resolved: ResolvedOptions): Services {
  const { stores, clock, random, logger } = resolved;
  const standIns = standInStores(stores);
  if (standIns.length > 0)
    logger.warn(
      { stores: standIns },
      `tenant-auth: the stores leave out ${standIns.join(', ')}: their features answer feature_unavailable, and a user whose second factor or passkey is kept there signs in without it`,
    );
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
  return {
    stores,
    clock,
    random,
    logger,
    instrumentation,
    events,
    tokens,
    hasher,
    dummyHash,
    policy,
    sessionTokens,
    cache,
    apiKeyRevocations: createApiKeyRevocations(),
    oneTimeTokens: createOneTimeTokens(clock, random),
    mail,
    limits,
    background,
    invitationTtlSeconds: resolved.invitationTtlSeconds,
    sealer,
    secondFactor,
    factorLock: createFactorLock({ stores, clock, mail, logger }),
    reauthMaxAgeSeconds: resolved.reauthMaxAgeSeconds,
    requireRecent: createRecentAuth({ stores, clock, reauthMaxAgeSeconds: resolved.reauthMaxAgeSeconds }),
    totpIssuer: resolved.totpIssuer,
    ceremonies: createPasskeyCeremonies({
      passkeys: () => stores.passkeys,
      clock,
      random,
      relyingParty: resolved.relyingParty,
    }),
  };
}
