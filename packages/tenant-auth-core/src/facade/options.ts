import { type MailOptions, resolveMail } from '../mechanisms/mail/mail-options.js';
import type { MailSettings } from '../mechanisms/mail/mail-outbox.js';
import { fail, integer, object, secretBytes, text } from '../mechanisms/option-checks.js';
import type { PasswordHasherOptions } from '../mechanisms/passwords/hasher.js';
import type { PasswordPolicyOptions } from '../mechanisms/passwords/policy.js';
import type { RequestLimitSettings } from '../mechanisms/rate-limit/request-limits.js';
import { type DataKeysOptions, dataKeysProblem } from '../mechanisms/sealing/data-key.js';
import type { SessionCheckSettings } from '../mechanisms/sessions/active-session-cache.js';
import type { AccessTokenKeyOptions } from '../mechanisms/tokens/keys.js';
import {
  type RelyingParty,
  type RelyingPartyOptions,
  resolveRelyingParty,
} from '../mechanisms/webauthn/relying-party.js';
import {
  type ResolvedWebhooks,
  resolveWebhooks,
  type WebhookOptions,
} from '../mechanisms/webhooks/webhook-options.js';
import type { Instrumentation } from '../ports/instrumentation.js';
import { consoleLogger, type Logger } from '../ports/logger.js';
import type { RateLimitStore } from '../ports/rate-limit-store.js';
import { isOptionalStore, STORE_NAMES } from '../ports/store-names.js';
import type { CompleteTenantAuthStores, TenantAuthStores } from '../ports/tenant-auth-stores.js';
import { type ResolvedSso, resolveSso } from '../use-cases/sso/sso-options.js';
import type { SsoOptions } from '../use-cases/sso/sso-types.js';
import type { AuthEvent } from '../vocabulary/auth-event.js';
import { type Clock, type RandomBytes, systemClock, systemRandom } from '../vocabulary/clock.js';
import { completeStores } from './complete-stores.js';

const DAY = 86_400;

/**
 * Rate limiting (the `rateLimit` option of `createTenantAuth`). Every number is per window, and every
 * budget slides (see docs/rate-limiting.md).
 *
 * @example
 * const rateLimit: RateLimitOptions = { store: new RedisRateLimitStore({ redis }), strict: 20 };
 */
export interface RateLimitOptions {
  /**
   * Where the counters live. Default: a `MemoryRateLimitStore` (one process; several instances need a
   * shared store such as tenant-auth-redis's `RedisRateLimitStore`, or each counts on its own).
   */
  store?: RateLimitStore;
  /** Length of the sliding window. Default 60. */
  windowSeconds?: number;
  /** Requests per window per client address on the routes that take credentials. Default 10. */
  strict?: number;
  /** Requests per window per client address on every other route. Default 300. */
  general?: number;
  /**
   * Requests per window on the routes that take credentials from one network (an IPv4 /24 or an IPv6
   * /48: one allocation), all its addresses together. Default 100.
   */
  network?: number;
  /**
   * Failed logins per window per account from one client network (an IPv4 address or an IPv6 /64): low,
   * so guessing from one place stops fast while the owner, elsewhere, still gets in. Default 10.
   */
  account?: number;
  /** Failed logins per window per account from every client together: bounds a distributed guess. Default 100. */
  accountCeiling?: number;
  /**
   * Wrong second-factor answers (TOTP or recovery codes) per window per account from one client network
   * (an IPv4 /24 or an IPv6 /48): a budget of its own, never the password throttle's. Every network
   * together gets ten times as many, so a stranger cannot lock the owner out. Default 10.
   */
  mfaFailuresPerAccount?: number;
  /**
   * Emails per hour to one address from one client network (registration's verification, recovery,
   * verification requests, email changes (the confirmation to the new address and the notice to the
   * old one, each against its own address), invitations), so nobody can flood a mailbox through us; all
   * networks together get four times as many, so one network cannot use up the owner's. Beyond it,
   * "forgot password" and the verification and email-change requests still answer as usual but send
   * nothing; an invitation is refused with `rate_limited`. Default 5.
   */
  mailbox?: number;
  /**
   * HMAC key for the per-account counter keys, so someone who can read the store cannot confirm a
   * guessed email by hashing it. Every instance sharing the store needs the same one. Default: none
   * (plain SHA-256).
   */
  accountKeySecret?: string | Uint8Array;
}

/**
 * Options of `createTenantAuth`. Only `stores`, `accessToken` and `refreshSecret` are required; every
 * other default follows the HTTP contract (docs/http-api.md). Every option is validated when `createTenantAuth`
 * is called, before any I/O: a bad one throws `TenantAuthError` with code `invalid_configuration`
 * naming it.
 *
 * @example
 * const options: TenantAuthOptions = {
 *   stores: createMemoryStores(),
 *   accessToken: { secret: process.env.JWT_SECRET! },
 *   refreshSecret: process.env.JWT_REFRESH_SECRET!,
 *   issuer: 'https://auth.example.com',
 * };
 */
export interface TenantAuthOptions {
  /** Where tenants, users and sessions live: `createMemoryStores()`, or a storage adapter's stores. */
  stores: TenantAuthStores;
  /** Access-token signing: `{ secret }` (HS256, at least 32 bytes) or `{ algorithm: 'EdDSA' | 'ES256', keys }`. */
  accessToken: AccessTokenKeyOptions;
  /** HS256 secret of refresh tokens: at least 32 bytes, different from the access secret. */
  refreshSecret: string | Uint8Array;
  /** `iss` of the tokens. Default `'tenant-auth'`. */
  issuer?: string;
  /** `aud` of the tokens. Default `'tenant-auth'`. */
  audience?: string;
  /** Default 900 (15 minutes). */
  accessTokenTtlSeconds?: number;
  /** Default 604800 (7 days); also the sliding session expiry. */
  refreshTokenTtlSeconds?: number;
  /** Hard session lifetime from login. Default 30 days. */
  sessionAbsoluteTtlSeconds?: number;
  /**
   * How long the refresh token a rotation replaced still gets the new one (two tabs refreshing at once),
   * instead of counting as a replay. Default 10; 0 turns it off; at most 60. The window trades replay
   * detection for that token: within it, whoever holds the previous token is handed the current one.
   */
  refreshReuseGraceSeconds?: number;
  /** How long revoked sessions are kept (for audit) before cleanup deletes them. Default 30 days. */
  revokedSessionRetentionSeconds?: number;
  /** Rows per cleanup batch. Default 1000. */
  cleanupBatchSize?: number;
  /** Password rules. */
  passwordPolicy?: PasswordPolicyOptions;
  /** bcrypt cost, pepper, pool size and queue bound. */
  passwordHashing?: PasswordHasherOptions;
  /**
   * Rate limiting: per-client budgets for the HTTP adapter and the per-account login throttle. On by
   * default with an in-memory store; `false` turns every budget off (tests, or limits enforced in front).
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * Check on every `verifyAccessToken` that the session is still active, so a logout cuts access tokens
   * at once. `true` uses a 5 s cache of at most 10,000 sessions.
   */
  checkSessionOnVerify?: boolean | { cacheTtlSeconds?: number; cacheSize?: number };
  /**
   * Email for invitations, password resets, verification and email changes. Without it those flows fail
   * with `unavailable` and registration sends no verification email.
   */
  mail?: MailOptions;
  /** Lifetime of an invitation. Default 604800 (7 days). */
  invitationTtlSeconds?: number;
  /**
   * The keys that seal data at rest: TOTP secrets and outbox payloads (AES-256-GCM, the key's id stored
   * with each value, so keys rotate). Default: one key derived from `refreshSecret` (id `r0`), which is
   * what 1.1 sealed its outbox with; give keys of their own in production (the reference server's
   * `ENCRYPTION_KEY`), and keep the derived one's values readable by keeping `refreshSecret`.
   */
  dataKeys?: DataKeysOptions;
  /** How old `authTime` may be for an operation that needs a recent authentication. Default 600. */
  reauthMaxAgeSeconds?: number;
  /** The issuer authenticator apps show for a TOTP factor (the `otpauth://` URI). Default `'tenant-auth'`. */
  totpIssuer?: string;
  /**
   * The WebAuthn relying party of passkeys (`rpId`, `rpName`, `origins`). Without it passkeys are off:
   * their methods fail with `invalid_configuration`.
   */
  webauthn?: RelyingPartyOptions;
  /** How long audit events are kept before cleanup deletes them. Default 90 days. */
  auditRetentionSeconds?: number;
  /**
   * Single sign-on per tenant: the sign-in protocols (one identity provider per protocol), the DNS
   * port and the application's URL. Without it the SSO routes answer `unavailable` (changes) or
   * `not_found` (sign-in).
   */
  sso?: SsoOptions;
  /**
   * How long a verified API key is trusted from this process's cache before the stores are asked
   * again, in seconds (0 to 5; 0 asks every time). A key revoked through this process stops at once;
   * one revoked through another instance stops within this time. Default 4.
   */
  apiKeyCacheSeconds?: number;
  /**
   * Webhooks (1.3): the sender that posts deliveries and judges URLs (the server's outbound client), and
   * the retry schedule. Without a sender, endpoints can be managed but nothing is delivered.
   */
  webhooks?: WebhookOptions;
  /**
   * Receives every auth event once its change has committed (metrics, alerts, a log): ids and addresses,
   * never secrets. Events of a tenant are also stored in its audit log, whatever this hook does.
   */
  onEvent?: (event: AuthEvent) => void;
  /** Tracing and metrics hooks (OpenTelemetry spans, Prometheus histograms). */
  instrumentation?: Instrumentation;
  /** Where warnings go (rate-limit store outages, cleanup failures). Default: JSON lines on stderr. */
  logger?: Logger;
  /** Time source. Default: the system clock. */
  clock?: Clock;
  /** Randomness. Default: Node's CSPRNG. */
  random?: RandomBytes;
}

/** @internal Every option with its default applied, validated. */
export interface ResolvedOptions {
  stores: CompleteTenantAuthStores;
  accessToken: AccessTokenKeyOptions;
  refreshSecret: string | Uint8Array;
  issuer: string;
  audience: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  sessionAbsoluteTtlSeconds: number;
  refreshReuseGraceSeconds: number;
  revokedSessionRetentionSeconds: number;
  cleanupBatchSize: number;
  passwordPolicy: PasswordPolicyOptions;
  passwordHashing: PasswordHasherOptions;
  /** The rate-limit settings; `store` undefined means the default memory store, made last. */
  rateLimit: (Omit<RequestLimitSettings, 'store'> & { store: RateLimitStore | undefined }) | undefined;
  sessionCheck: SessionCheckSettings | undefined;
  mail: MailSettings | undefined;
  invitationTtlSeconds: number;
  dataKeys: DataKeysOptions | undefined;
  reauthMaxAgeSeconds: number;
  totpIssuer: string;
  relyingParty: RelyingParty | undefined;
  auditRetentionSeconds: number;
  sso: ResolvedSso | undefined;
  apiKeyCacheSeconds: number;
  webhooks: ResolvedWebhooks;
  onEvent: ((event: AuthEvent) => void) | undefined;
  instrumentation: Instrumentation | undefined;
  logger: Logger;
  clock: Clock;
  random: RandomBytes;
}

function resolveStores(value: unknown): CompleteTenantAuthStores {
  const stores = object<Partial<TenantAuthStores>>('stores', value);
  if (!stores)
    throw fail(
      'stores',
      'is required (createMemoryStores(), or a storage adapter such as createMikroOrmStores(orm))',
    );
  // Every store of the bundle (STORE_NAMES, tied to TenantAuthStores); an optional one may be absent.
  for (const name of STORE_NAMES) {
    const store: unknown = stores[name];
    if (store === undefined && isOptionalStore(name)) continue;
    if (typeof store !== 'object' || store === null) throw fail(`stores.${name}`, 'is required');
  }
  if (typeof stores.transaction !== 'function') throw fail('stores.transaction', 'must be a function');
  // A store or store method the bundle leaves out (one written for 1.1) is a stand-in: complete-stores.ts.
  return completeStores(stores as TenantAuthStores);
}

function resolveRateLimit(value: unknown): ResolvedOptions['rateLimit'] {
  if (value === false) return undefined;
  const options = object<RateLimitOptions>('rateLimit', value) ?? {};
  if (options.store !== undefined && typeof options.store?.hit !== 'function') {
    throw fail('rateLimit.store', 'must be a RateLimitStore (an object with hit())');
  }
  return {
    store: options.store,
    windowSeconds: integer('rateLimit.windowSeconds', options.windowSeconds, 60, 1, 86_400),
    strict: integer('rateLimit.strict', options.strict, 10, 1),
    general: integer('rateLimit.general', options.general, 300, 1),
    network: integer('rateLimit.network', options.network, 100, 1),
    account: integer('rateLimit.account', options.account, 10, 1),
    accountCeiling: integer('rateLimit.accountCeiling', options.accountCeiling, 100, 1),
    mfaFailuresPerAccount: integer('rateLimit.mfaFailuresPerAccount', options.mfaFailuresPerAccount, 10, 1),
    mailbox: integer('rateLimit.mailbox', options.mailbox, 5, 1),
    accountKeySecret: secretBytes('rateLimit.accountKeySecret', options.accountKeySecret),
  };
}

function resolveSessionCheck(value: unknown): SessionCheckSettings | undefined {
  if (value === undefined || value === false) return undefined;
  if (value !== true && (typeof value !== 'object' || value === null)) {
    throw fail('checkSessionOnVerify', 'must be a boolean or { cacheTtlSeconds, cacheSize }');
  }
  const given = value === true ? {} : (value as { cacheTtlSeconds?: unknown; cacheSize?: unknown });
  return {
    cacheTtlMs: integer('checkSessionOnVerify.cacheTtlSeconds', given.cacheTtlSeconds, 5, 0, 60) * 1000,
    cacheSize: integer('checkSessionOnVerify.cacheSize', given.cacheSize, 10_000, 1),
  };
}

function resolveDataKeys(value: unknown): DataKeysOptions | undefined {
  if (value === undefined) return undefined;
  const problem = dataKeysProblem(value);
  if (problem) throw fail(problem.option, problem.problem);
  return value as DataKeysOptions;
}

function resolveLogger(value: unknown): Logger {
  if (value === undefined) return consoleLogger;
  const logger = value as Partial<Logger>;
  if (
    typeof logger !== 'object' ||
    logger === null ||
    !['error', 'warn', 'info'].every((m) => typeof logger[m as keyof Logger] === 'function')
  ) {
    throw fail('logger', 'must have error, warn and info methods (a pino logger fits)');
  }
  return value as Logger;
}

/** @internal Validates every option and applies the defaults; throws `invalid_configuration`. */
export function resolveOptions(options: TenantAuthOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw fail('options', 'must be an object');
  if (options.accessToken === undefined)
    throw fail('accessToken', 'is required ({ secret } or { algorithm, keys })');
  if (options.refreshSecret === undefined) {
    throw fail(
      'refreshSecret',
      'is required (a random secret of at least 32 bytes, different from the access secret)',
    );
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function')
    throw fail('onEvent', 'must be a function');
  const instrumentation = object<Instrumentation>('instrumentation', options.instrumentation);
  for (const hook of [
    'span',
    'onPasswordHashing',
    'onMailDelivery',
    'onApiKeyCheck',
    'onWebhookDelivery',
  ] as const) {
    if (instrumentation?.[hook] !== undefined && typeof instrumentation[hook] !== 'function')
      throw fail(`instrumentation.${hook}`, 'must be a function');
  }
  return {
    stores: resolveStores(options.stores),
    accessToken: options.accessToken,
    refreshSecret: options.refreshSecret,
    issuer: text('issuer', options.issuer, 'tenant-auth'),
    audience: text('audience', options.audience, 'tenant-auth'),
    accessTokenTtlSeconds: integer('accessTokenTtlSeconds', options.accessTokenTtlSeconds, 900, 1),
    refreshTokenTtlSeconds: integer('refreshTokenTtlSeconds', options.refreshTokenTtlSeconds, 7 * DAY, 1),
    sessionAbsoluteTtlSeconds: integer(
      'sessionAbsoluteTtlSeconds',
      options.sessionAbsoluteTtlSeconds,
      30 * DAY,
      1,
    ),
    refreshReuseGraceSeconds: integer(
      'refreshReuseGraceSeconds',
      options.refreshReuseGraceSeconds,
      10,
      0,
      60,
    ),
    revokedSessionRetentionSeconds: integer(
      'revokedSessionRetentionSeconds',
      options.revokedSessionRetentionSeconds,
      30 * DAY,
      0,
    ),
    cleanupBatchSize: integer('cleanupBatchSize', options.cleanupBatchSize, 1000, 1),
    passwordPolicy: object<PasswordPolicyOptions>('passwordPolicy', options.passwordPolicy) ?? {},
    passwordHashing: object<PasswordHasherOptions>('passwordHashing', options.passwordHashing) ?? {},
    sessionCheck: resolveSessionCheck(options.checkSessionOnVerify),
    mail: resolveMail(options.mail),
    invitationTtlSeconds: integer('invitationTtlSeconds', options.invitationTtlSeconds, 7 * DAY, 60),
    dataKeys: resolveDataKeys(options.dataKeys),
    reauthMaxAgeSeconds: integer('reauthMaxAgeSeconds', options.reauthMaxAgeSeconds, 600, 1, DAY),
    totpIssuer: text('totpIssuer', options.totpIssuer, 'tenant-auth'),
    relyingParty: options.webauthn === undefined ? undefined : resolveRelyingParty(options.webauthn),
    auditRetentionSeconds: integer('auditRetentionSeconds', options.auditRetentionSeconds, 90 * DAY, 1),
    sso: resolveSso(options.sso),
    apiKeyCacheSeconds: integer('apiKeyCacheSeconds', options.apiKeyCacheSeconds, 4, 0, 5),
    webhooks: resolveWebhooks(options.webhooks),
    onEvent: options.onEvent,
    instrumentation,
    logger: resolveLogger(options.logger),
    clock: options.clock ?? systemClock,
    random: options.random ?? systemRandom,
    rateLimit: resolveRateLimit(options.rateLimit),
  };
}
