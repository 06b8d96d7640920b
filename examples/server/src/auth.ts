import { createHash, hkdfSync } from 'node:crypto';
import {
  type AccessTokenKeyOptions,
  type AuthEvent,
  type Clock,
  createTenantAuth,
  type DataKeysOptions,
  type Instrumentation,
  isTenantAuthError,
  type Mailer,
  type RateLimitStore,
  type TenantAuth,
  type TenantAuthStores,
} from 'tenant-auth-core';
import { ConfigError, type ServerConfig } from './config.js';
import { createDnsResolver } from './dns-resolver.js';
import type { Logger } from './logger.js';
import { createOutboundClient, type OutboundClient } from './outbound/outbound-client.js';
import { webhookSenderOf } from './outbound/webhook-sender.js';
import { identityProviders } from './sso/providers.js';

/**
 * The environment variable behind each tenant-auth option the server sets, so that a value tenant-auth
 * refuses is reported by the name the operator wrote.
 */
const VARIABLE_OF_OPTION: Record<string, string> = {
  'accessToken.secret': 'JWT_SECRET',
  'accessToken.keys': 'JWT_PRIVATE_KEY_FILE',
  refreshSecret: 'JWT_REFRESH_SECRET',
  refreshReuseGraceSeconds: 'REFRESH_REUSE_GRACE_SECONDS',
  'passwordHashing.cost': 'BCRYPT_COST',
  'passwordHashing.maxPerClient': 'PASSWORD_HASHING_NETWORK_SHARE',
  'rateLimit.windowSeconds': 'RATE_LIMIT_WINDOW_SECONDS',
  'rateLimit.strict': 'RATE_LIMIT_AUTH_MAX',
  'rateLimit.network': 'RATE_LIMIT_NETWORK_MAX',
  'rateLimit.general': 'RATE_LIMIT_MAX',
  'rateLimit.account': 'LOGIN_FAILURES_PER_ACCOUNT',
  'rateLimit.mfaFailuresPerAccount': 'MFA_FAILURES_PER_ACCOUNT',
  reauthMaxAgeSeconds: 'REAUTH_MAX_AGE_SECONDS',
  apiKeyCacheSeconds: 'API_KEY_CACHE_SECONDS',
  totpIssuer: 'TOTP_ISSUER',
  'webauthn.rpId': 'WEBAUTHN_RP_ID',
  'webauthn.rpName': 'WEBAUTHN_RP_NAME',
  'webauthn.origins': 'WEBAUTHN_ORIGINS',
  'dataKeys.current.key': 'ENCRYPTION_KEY',
  'dataKeys.current': 'ENCRYPTION_KEY',
  origins: 'CORS_ORIGINS',
  'mail.appUrl': 'APP_URL',
  'mail.from': 'MAIL_FROM',
  invitationTtlSeconds: 'INVITATION_TTL_SECONDS',
  'sso.appUrl': 'APP_URL',
  auditRetentionSeconds: 'AUDIT_RETENTION_DAYS',
  'scim.baseUrl': 'PUBLIC_URL',
  'scim.rateLimit.max': 'SCIM_RATE_LIMIT_MAX',
  'scim.rateLimit.windowSeconds': 'RATE_LIMIT_WINDOW_SECONDS',
};

/**
 * Runs a tenant-auth factory and turns its `invalid_configuration` into the server's `ConfigError`,
 * naming the environment variable instead of the option (tenant-auth states each rule; the server
 * only says where the value came from).
 *
 * @example
 * const tenantAuth = asConfigError(() => createTenantAuthKoa({ auth, origins: config.origins }));
 */
export function asConfigError<T>(create: () => T): T {
  try {
    return create();
  } catch (err) {
    if (!isTenantAuthError(err, 'invalid_configuration') || err.option === undefined) throw err;
    const variable = VARIABLE_OF_OPTION[err.option] ?? err.option;
    let problem = err.message.slice(err.message.indexOf(err.option) + err.option.length).trim();
    // A problem that mentions another option ("must differ from accessToken.secret") names its variable too.
    for (const [option, name] of Object.entries(VARIABLE_OF_OPTION))
      problem = problem.replaceAll(option, name);
    throw new ConfigError([{ variable, message: problem }]);
  }
}

/**
 * The HMAC key of the per-account rate-limit keys (login throttle, mailbox budget), derived from the
 * refresh secret: every instance has it already, and the store (Redis) then holds no address nor a plain
 * hash of one that a guess could be checked against. Rotating the refresh secret starts those counters
 * afresh, which is harmless.
 *
 * @example
 * const accountKeySecret = accountKeySecretOf(refreshSecret);
 */
export function accountKeySecretOf(refreshSecret: string): Uint8Array {
  return new Uint8Array(
    hkdfSync('sha256', refreshSecret, Buffer.alloc(0), 'tenant-auth-server/account-keys/v1', 32),
  );
}

/**
 * The id stored beside every value sealed with `ENCRYPTION_KEY`: a fingerprint of the key (the first 48
 * bits of its SHA-256), so a new key gets a new id and the values sealed with the old one are never tried
 * with the wrong key. It says nothing usable about the key (256 random bits).
 *
 * @example
 * const dataKeys = { current: { id: dataKeyIdOf(key), key } };
 */
export function dataKeyIdOf(key: Uint8Array): string {
  return `k${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

/**
 * The data keys: `ENCRYPTION_KEY` seals, it and the `ENCRYPTION_KEY_PREVIOUS` keys open (each by the id
 * its values carry). A previous key equal to the current one (the development key of the data folder
 * listed again) is left out: it opens its values already.
 *
 * @example
 * const dataKeys = dataKeysOf(encryptionKey, config.mfa.previousEncryptionKeys);
 */
export function dataKeysOf(current: Uint8Array, previous: readonly Uint8Array[]): DataKeysOptions {
  const id = dataKeyIdOf(current);
  return {
    current: { id, key: current },
    previous: previous.map((key) => ({ id: dataKeyIdOf(key), key })).filter((k) => k.id !== id),
  };
}

/** What the server composes tenant-auth from, besides the configuration. */
export interface AuthParts {
  stores: TenantAuthStores;
  accessToken: AccessTokenKeyOptions;
  refreshSecret: string;
  /** `ENCRYPTION_KEY` (or the development key of the data folder): seals TOTP secrets and outbox payloads. */
  encryptionKey: Uint8Array;
  rateLimitStore: RateLimitStore | undefined;
  onEvent: (event: AuthEvent) => void;
  mailer: Mailer;
  /** Tracing and metrics hooks (spans, password hashing, mail delivery). */
  instrumentation?: Instrumentation;
  logger: Logger;
  clock?: Clock;
  /**
   * The server's one outbound HTTP client (identity providers, SAML metadata, webhooks).
   * Unset: one made from the configuration (for a `TenantAuth` that is never served, as in tests).
   */
  outbound?: OutboundClient;
}

/**
 * The server's outbound client as the configuration says: loopback per `OUTBOUND_ALLOW_LOOPBACK`, names
 * resolved with `DNS_SERVERS`.
 *
 * @example
 * const outbound = outboundClientOf(config);
 */
export function outboundClientOf(config: ServerConfig): OutboundClient {
  return createOutboundClient({
    allowLoopback: config.outbound.allowLoopback,
    ...(config.sso.dnsServers ? { dnsServers: config.sso.dnsServers } : {}),
  });
}

/**
 * The reference server's `TenantAuth`: the configuration's settings, tenant-auth's defaults for what
 * is unset. Validated here, before any I/O; a bad value throws `ConfigError` naming its variable.
 *
 * @example
 * const auth = createAuth(config, { stores, accessToken, refreshSecret, rateLimitStore, onEvent, logger });
 */
export function createAuth(config: ServerConfig, parts: AuthParts): TenantAuth {
  const { rateLimit, mfa } = config;
  const outbound = parts.outbound ?? outboundClientOf(config);
  return asConfigError(() =>
    createTenantAuth({
      stores: parts.stores,
      accessToken: parts.accessToken,
      refreshSecret: parts.refreshSecret,
      ...(config.refreshReuseGraceSeconds === undefined
        ? {}
        : { refreshReuseGraceSeconds: config.refreshReuseGraceSeconds }),
      passwordHashing: {
        ...(config.bcryptCost === undefined ? {} : { cost: config.bcryptCost }),
        ...(config.passwordHashingNetworkShare === undefined
          ? {}
          : { maxPerClient: config.passwordHashingNetworkShare }),
      },
      rateLimit: {
        ...(parts.rateLimitStore ? { store: parts.rateLimitStore } : {}),
        accountKeySecret: accountKeySecretOf(parts.refreshSecret),
        ...(rateLimit.windowSeconds === undefined ? {} : { windowSeconds: rateLimit.windowSeconds }),
        ...(rateLimit.strict === undefined ? {} : { strict: rateLimit.strict }),
        ...(rateLimit.network === undefined ? {} : { network: rateLimit.network }),
        ...(rateLimit.general === undefined ? {} : { general: rateLimit.general }),
        ...(rateLimit.account === undefined ? {} : { account: rateLimit.account }),
        ...(mfa.failuresPerAccount === undefined ? {} : { mfaFailuresPerAccount: mfa.failuresPerAccount }),
      },
      dataKeys: dataKeysOf(parts.encryptionKey, config.mfa.previousEncryptionKeys),
      ...(mfa.reauthMaxAgeSeconds === undefined ? {} : { reauthMaxAgeSeconds: mfa.reauthMaxAgeSeconds }),
      ...(mfa.totpIssuer === undefined ? {} : { totpIssuer: mfa.totpIssuer }),
      ...(config.webauthn === undefined ? {} : { webauthn: config.webauthn }),
      checkSessionOnVerify: config.checkSessionOnVerify,
      mail: { mailer: parts.mailer, from: config.mail.from, appUrl: config.mail.appUrl },
      ...(config.invitationTtlSeconds === undefined
        ? {}
        : { invitationTtlSeconds: config.invitationTtlSeconds }),
      auditRetentionSeconds: config.auditRetentionDays * 86_400,
      sso: {
        providers: identityProviders(config, outbound),
        domainResolver: createDnsResolver(config.sso.dnsServers),
        appUrl: config.mail.appUrl,
      },
      apiKeyCacheSeconds: config.apiKeyCacheSeconds,
      webhooks: {
        sender: webhookSenderOf(outbound, config.outbound),
        retryScheduleSeconds: config.webhookRetryScheduleSeconds,
      },
      onEvent: parts.onEvent,
      ...(parts.instrumentation ? { instrumentation: parts.instrumentation } : {}),
      logger: parts.logger,
      ...(parts.clock ? { clock: parts.clock } : {}),
    }),
  );
}
