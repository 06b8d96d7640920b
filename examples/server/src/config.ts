import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEVELOPMENT_ORIGINS, originProblem } from 'tenant-auth-koa';
import { z } from 'zod';
import { secretStrengthProblem } from './secret-strength.js';
import { parseTrustedProxies } from './trusted-proxies.js';
import { passkeysUnavailableReason, type WebAuthnConfig, webauthnConfigOf } from './webauthn-config.js';

/** The environments the server knows; `test` behaves like `development`. */
export type NodeEnv = 'development' | 'production' | 'test';

/** Where the data lives. */
export type DatabaseConfig =
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'memory' }
  | { kind: 'postgres'; url: string };

/** Algorithms the server can sign access tokens with. Refresh tokens always use HS256. */
export type AccessAlgorithm = 'HS256' | 'EdDSA' | 'ES256';

/** The validated configuration of the reference server (docs/http-api.md, "Configuration of the reference server"). */
export interface ServerConfig {
  port: number;
  nodeEnv: NodeEnv;
  production: boolean;
  /** Folder for the embedded database and the development secrets. */
  dataDir: string;
  database: DatabaseConfig;
  jwt: {
    /** Unset in development until `resolveSecrets` fills it from the data folder. */
    secret: string | undefined;
    refreshSecret: string | undefined;
    accessAlgorithm: AccessAlgorithm;
    privateKeyFile: string | undefined;
    publicKeyFile: string | undefined;
  };
  /** The exact web origins allowed by CORS and the CSRF rule (`CORS_ORIGINS`). */
  origins: string[];
  /** Number of trusted proxy hops in front of the server. */
  trustProxy: number;
  /** `TRUSTED_PROXIES`: the peers whose `X-Forwarded-For` is honoured; unset: any peer (as in 1.0). */
  trustedProxies: string | undefined;
  /** The interface to listen on: `HOST`, or loopback in development and every interface in production. */
  host: string;
  redisUrl: string | undefined;
  /**
   * The tenant-auth settings of the environment, `undefined` when unset: tenant-auth's own defaults then
   * apply, and tenant-auth validates the values when the server is composed (see `auth.ts`).
   */
  rateLimit: {
    windowSeconds: number | undefined;
    strict: number | undefined;
    network: number | undefined;
    general: number | undefined;
    account: number | undefined;
    /** `SCIM_RATE_LIMIT_MAX`: SCIM requests per window per tenant (tenant-auth-koa's default 600 when unset). */
    scim: number | undefined;
  };
  bcryptCost: number | undefined;
  /**
   * `PASSWORD_HASHING_NETWORK_SHARE`: most password hashes and checks one client network may have running
   * or waiting at once (tenant-auth's `passwordHashing.maxPerClient`); beyond it `429 rate_limited`.
   */
  passwordHashingNetworkShare: number | undefined;
  refreshReuseGraceSeconds: number | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Check on every request that the access token's session is still active. */
  checkSessionOnVerify: boolean;
  /** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
  shutdownTimeoutMs: number;
  /**
   * `SHUTDOWN_DRAIN_SECONDS`: how long the server keeps serving, `/readyz` answering 503, before it stops
   * accepting connections, so a load balancer sees it not ready and drains it first.
   */
  shutdownDrainMs: number;
  /**
   * `THREAD_POOL_NICE`: the nice value `pnpm start` gives libuv's thread pool, where bcrypt runs, so a
   * login flood leaves the cores to every other request first (Linux; 0: unchanged).
   */
  threadPoolNice: number;
  mail: {
    /** `APP_URL`: the web application the links in emails open. */
    appUrl: string;
    /** `SMTP_URL`; unset in development: each message is written to the log instead. */
    smtpUrl: string | undefined;
    /** `MAIL_FROM`. */
    from: string;
  };
  /** `INVITATION_TTL_SECONDS`; tenant-auth's default (7 days) when unset. */
  invitationTtlSeconds: number | undefined;
  /** `AUDIT_RETENTION_DAYS`. */
  auditRetentionDays: number;
  /** `API_KEY_CACHE_SECONDS`: how long a verified API key is trusted from the process's cache (0 to 5). */
  apiKeyCacheSeconds: number;
  /** `METRICS_TOKEN`: the bearer token `/metrics` requires; unset: open in development, absent in production. */
  metricsToken: string | undefined;
  /** The second factor and recent authentication (tenant-auth's defaults when unset). */
  mfa: {
    /** `ENCRYPTION_KEY`, 32 bytes; unset in development until `resolveEncryptionKey` fills it from the data folder. */
    encryptionKey: Uint8Array | undefined;
    /**
     * `ENCRYPTION_KEY_PREVIOUS`: the older data keys (32 bytes each), still opened after a rotation of
     * `ENCRYPTION_KEY`; empty when unset.
     */
    previousEncryptionKeys: Uint8Array[];
    /** `REAUTH_MAX_AGE_SECONDS`. */
    reauthMaxAgeSeconds: number | undefined;
    /** `MFA_FAILURES_PER_ACCOUNT`. */
    failuresPerAccount: number | undefined;
    /** `TOTP_ISSUER`. */
    totpIssuer: string | undefined;
  };
  /** The passkey relying party (`WEBAUTHN_*`, defaults from `APP_URL`); `undefined`: passkeys off. */
  webauthn: WebAuthnConfig | undefined;
  /** Why passkeys are off though no `WEBAUTHN_*` variable turned them off (logged once at start-up); `undefined`: on. */
  passkeysUnavailable: string | undefined;
  /** Single sign-on per tenant (OpenID Connect). */
  sso: {
    /** `PUBLIC_URL`: the server's own public base URL; the redirect URI is `<it>/api/v1/auth/sso/callback`. */
    publicUrl: string;
    /** `DNS_SERVERS` (`host:port`, comma-separated); `undefined`: the system's resolvers. */
    dnsServers: string[] | undefined;
  };
  /** Requests to URLs that tenants and providers choose (identity providers, SAML metadata, webhooks). */
  outbound: {
    /**
     * `OUTBOUND_ALLOW_LOOPBACK` (older name: `SSO_ALLOW_INSECURE_ISSUERS`): also loopback addresses, and
     * `http://` to loopback, for tests and local development; refused in production. Off, the server
     * connects over `https://` to public addresses only.
     */
    allowLoopback: boolean;
  };
  /** `WEBHOOK_RETRY_SCHEDULE_SECONDS`: the delays between webhook delivery attempts. */
  webhookRetryScheduleSeconds: number[];
}

/** `WEBHOOK_RETRY_SCHEDULE_SECONDS` by default (docs/http-api.md, "Configuration added in 1.3"). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5,30,120,600,3600,21600,43200,86400';

/** The server's public base URL in development. */
export const DEFAULT_PUBLIC_URL = 'http://localhost:4000';

/** One resolver of `DNS_SERVERS`: `host:port` (an IPv6 host in brackets), or a bare IP address. */
const DNS_SERVER = /^(?:\[[0-9a-fA-F:.]+\]|[0-9.]+|[0-9a-fA-F:]+)(?::\d{1,5})?$/;

/** Where the links of development emails point: the example web application's dev server. */
export const DEFAULT_APP_URL = 'http://localhost:5173';
/** The sender of development emails. */
export const DEFAULT_MAIL_FROM = 'tenant-auth <no-reply@localhost>';

/** The server package's own `data/` folder (gitignored). */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../data', import.meta.url));

/** One bad variable. */
export interface ConfigIssue {
  variable: string;
  message: string;
}

/**
 * The configuration is invalid; `message` lists every bad variable by name.
 *
 * @example
 * try { parseConfig(process.env); } catch (err) { if (err instanceof ConfigError) console.error(err.message); }
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n')}`);
    this.issues = issues;
  }
}

// An empty variable (`FOO=` in an env file) counts as unset.
const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

const integer = (name: string, min: number, max: number, fallback: number) =>
  z.preprocess(
    (v) => (v === undefined || v === '' ? fallback : v),
    z
      .string({ error: `${name} must be an integer` })
      .or(z.number())
      .transform((v, ctx) => {
        const text = String(v).trim();
        const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
        if (!Number.isSafeInteger(n) || n < min || n > max) {
          ctx.addIssue({
            code: 'custom',
            message: `must be an integer from ${min} to ${max} (got "${text}")`,
          });
          return z.NEVER;
        }
        return n;
      }),
  );

/** An integer, or `undefined` when unset; its range is tenant-auth's to check. */
const optionalInteger = (name: string) =>
  z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string({ error: `${name} must be an integer` })
      .optional()
      .transform((v, ctx) => {
        if (v === undefined) return undefined;
        const text = v.trim();
        if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
          ctx.addIssue({ code: 'custom', message: `must be an integer (got "${text}")` });
          return z.NEVER;
        }
        return Number(text);
      }),
  );

const booleanFlag = (fallback: boolean) =>
  z.preprocess(
    (v) => (v === undefined || v === '' ? String(fallback) : String(v).toLowerCase()),
    z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .transform((v) => v === 'true' || v === '1'),
  );

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Whether `value` parses as a URL with one of `protocols` and a host. */
function isUrl(value: string, protocols: string[]): boolean {
  try {
    const url = new URL(value);
    // `postgresql:///db?host=/var/run/postgresql` names a Unix socket instead of a host.
    return protocols.includes(url.protocol) && (url.hostname !== '' || url.searchParams.has('host'));
  } catch {
    return false;
  }
}

const schema = z.object({
  PORT: integer('PORT', 0, 65535, 4000),
  HOST: optionalString.refine(
    (v) => v === undefined || isIP(v) !== 0 || v === 'localhost',
    'must be an IP address to listen on (0.0.0.0 or :: for every interface), or localhost',
  ),
  NODE_ENV: z.preprocess(
    (v) => (v === undefined || v === '' ? 'development' : v),
    z.enum(['development', 'production', 'test'], { error: 'must be development, production or test' }),
  ),
  DATA_DIR: optionalString,
  // The messages never repeat the value: it may hold a password.
  DATABASE_URL: optionalString.refine(
    (v) => v === undefined || v === 'memory:' || isUrl(v, ['postgres:', 'postgresql:']),
    'must be unset (embedded PGlite), memory: (in-memory PGlite) or a postgres:// or postgresql:// URL with a host',
  ),
  JWT_SECRET: optionalString,
  JWT_REFRESH_SECRET: optionalString,
  JWT_ACCESS_ALGORITHM: z.preprocess(
    (v) => (v === undefined || v === '' ? 'HS256' : v),
    z.enum(['HS256', 'EdDSA', 'ES256'], { error: 'must be HS256, EdDSA or ES256' }),
  ),
  JWT_PRIVATE_KEY_FILE: optionalString,
  JWT_PUBLIC_KEY_FILE: optionalString,
  CORS_ORIGINS: optionalString,
  TRUST_PROXY: integer('TRUST_PROXY', 0, 32, 0),
  TRUSTED_PROXIES: optionalString.superRefine((v, ctx) => {
    if (v === undefined) return;
    const parsed = parseTrustedProxies(v);
    if (!parsed.ok)
      ctx.addIssue({
        code: 'custom',
        message: `holds entries that are not addresses or CIDRs: ${parsed.bad.join(', ')}`,
      });
    else if (v.split(',').every((e) => e.trim() === ''))
      ctx.addIssue({ code: 'custom', message: 'lists no address' });
  }),
  REDIS_URL: optionalString.refine(
    (v) => v === undefined || isUrl(v, ['redis:', 'rediss:']),
    'must be a redis:// or rediss:// URL with a host',
  ),
  RATE_LIMIT_WINDOW_SECONDS: optionalInteger('RATE_LIMIT_WINDOW_SECONDS'),
  RATE_LIMIT_AUTH_MAX: optionalInteger('RATE_LIMIT_AUTH_MAX'),
  RATE_LIMIT_NETWORK_MAX: optionalInteger('RATE_LIMIT_NETWORK_MAX'),
  RATE_LIMIT_MAX: optionalInteger('RATE_LIMIT_MAX'),
  SCIM_RATE_LIMIT_MAX: optionalInteger('SCIM_RATE_LIMIT_MAX'),
  LOGIN_FAILURES_PER_ACCOUNT: optionalInteger('LOGIN_FAILURES_PER_ACCOUNT'),
  BCRYPT_COST: optionalInteger('BCRYPT_COST'),
  PASSWORD_HASHING_NETWORK_SHARE: optionalInteger('PASSWORD_HASHING_NETWORK_SHARE'),
  REFRESH_REUSE_GRACE_SECONDS: optionalInteger('REFRESH_REUSE_GRACE_SECONDS'),
  LOG_LEVEL: z.preprocess(
    (v) => (v === undefined || v === '' ? 'info' : v),
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  ),
  CHECK_SESSION_ON_VERIFY: booleanFlag(false),
  SHUTDOWN_TIMEOUT_SECONDS: integer('SHUTDOWN_TIMEOUT_SECONDS', 0, 600, 10),
  THREAD_POOL_NICE: integer('THREAD_POOL_NICE', 0, 19, 10),
  SHUTDOWN_DRAIN_SECONDS: integer('SHUTDOWN_DRAIN_SECONDS', 0, 300, 0),
  APP_URL: optionalString.refine(
    (v) => v === undefined || isUrl(v, ['http:', 'https:']),
    'must be an http:// or https:// URL (the web application the links in emails open)',
  ),
  // The message never repeats the value: it may hold a password.
  SMTP_URL: optionalString.refine(
    (v) => v === undefined || isUrl(v, ['smtp:', 'smtps:']),
    'must be an smtp:// or smtps:// URL with a host (smtp://user:pass@host:587)',
  ),
  MAIL_FROM: optionalString,
  INVITATION_TTL_SECONDS: optionalInteger('INVITATION_TTL_SECONDS'),
  AUDIT_RETENTION_DAYS: integer('AUDIT_RETENTION_DAYS', 1, 3650, 90),
  // At most 5: docs/http-api.md ("API keys") promises that a revoked key stops on every instance within 5 seconds.
  API_KEY_CACHE_SECONDS: integer('API_KEY_CACHE_SECONDS', 0, 5, 4),
  // Sent as `Authorization: Bearer <token>`: only the characters of an RFC 6750 bearer token.
  METRICS_TOKEN: optionalString.refine(
    (v) => v === undefined || /^[A-Za-z0-9._~+/-]+=*$/.test(v),
    'must be a bearer token: letters, digits and - . _ ~ + / (then any = padding), no spaces',
  ),
  // The message never repeats the value: it is a key.
  ENCRYPTION_KEY: optionalString.refine(
    (v) => v === undefined || encryptionKeyOf(v) !== undefined,
    'must be 32 random bytes in base64url (43 characters)',
  ),
  // Each entry checked as ENCRYPTION_KEY is; the message says which entry, never a value.
  ENCRYPTION_KEY_PREVIOUS: optionalString.superRefine((v, ctx) => {
    const entries = v === undefined ? [] : v.split(',');
    for (const [i, entry] of entries.entries())
      if (encryptionKeyOf(entry) === undefined)
        ctx.addIssue({
          code: 'custom',
          message: `entry ${i + 1} of ${entries.length} must be 32 random bytes in base64url (43 characters); separate keys with commas`,
        });
  }),
  REAUTH_MAX_AGE_SECONDS: optionalInteger('REAUTH_MAX_AGE_SECONDS'),
  MFA_FAILURES_PER_ACCOUNT: optionalInteger('MFA_FAILURES_PER_ACCOUNT'),
  TOTP_ISSUER: optionalString,
  WEBAUTHN_RP_ID: optionalString,
  WEBAUTHN_RP_NAME: optionalString,
  WEBAUTHN_ORIGINS: optionalString,
  PUBLIC_URL: optionalString.refine(
    (v) => v === undefined || (isUrl(v, ['http:', 'https:']) && !/[?#]/.test(v)),
    "must be an http:// or https:// URL without query or fragment (the server's public base URL)",
  ),
  DNS_SERVERS: optionalString.refine(
    (v) =>
      v === undefined || v.split(',').every((entry) => DNS_SERVER.test(entry.trim()) && entry.trim() !== ''),
    'must be comma-separated resolvers as host:port with an IP address as host (127.0.0.1:53, [::1]:53)',
  ),
  OUTBOUND_ALLOW_LOOPBACK: booleanFlag(false),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: optionalString.refine(
    (v) =>
      v === undefined ||
      (v.split(',').length <= 100 &&
        v.split(',').every((entry) => /^\d{1,6}$/.test(entry.trim()) && Number(entry.trim()) <= 604_800)),
    'must be comma-separated whole numbers of seconds, each at most 604800 (5,30,120)',
  ),
  // The 1.2 name of OUTBOUND_ALLOW_LOOPBACK: unset is "not said", so that the newer name decides.
  SSO_ALLOW_INSECURE_ISSUERS: z.preprocess(
    (v) => (v === undefined || v === '' ? undefined : String(v).toLowerCase()),
    z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1')),
  ),
});

/** Every environment variable the server reads (the configuration table of its README lists each). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

/**
 * The 32 bytes of an `ENCRYPTION_KEY` (base64url, padding allowed), or `undefined` when it is not that.
 *
 * @example
 * encryptionKeyOf(randomBytes(32).toString('base64url'))?.length; // 32
 */
export function encryptionKeyOf(text: string): Uint8Array | undefined {
  const trimmed = text.trim().replace(/=+$/, '');
  if (!/^[A-Za-z0-9_-]{43}$/.test(trimmed)) return undefined;
  const bytes = Buffer.from(trimmed, 'base64url');
  return bytes.length === 32 ? new Uint8Array(bytes) : undefined;
}

/** How to make a good secret, said wherever a secret is refused. */
const GENERATE_SECRET =
  "generate one with: node -e \"console.log(require('node:crypto').randomBytes(32).toString('base64url'))\"";

/**
 * Rules that span several variables. They read the raw strings, so they are reported together with
 * the per-variable problems instead of only once those are fixed.
 */
function crossChecks(raw: Record<string, string | undefined>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const add = (variable: string, message: string) => issues.push({ variable, message });
  const get = (name: string) => (raw[name] === '' ? undefined : raw[name]);
  const production = get('NODE_ENV') === 'production';
  const algorithm = get('JWT_ACCESS_ALGORITHM') ?? 'HS256';
  const secret = get('JWT_SECRET');
  const refreshSecret = get('JWT_REFRESH_SECRET');
  for (const [name, value] of [
    ['JWT_SECRET', secret],
    ['JWT_REFRESH_SECRET', refreshSecret],
  ] as const) {
    if (value === undefined && production) {
      add(name, `is required when NODE_ENV=production (${GENERATE_SECRET})`);
    } else if (value !== undefined && production) {
      const problem = secretStrengthProblem(value);
      if (problem !== null) add(name, `${problem} when NODE_ENV=production (${GENERATE_SECRET})`);
    }
  }
  if ((secret === undefined) !== (refreshSecret === undefined) && !production) {
    const missing = secret === undefined ? 'JWT_SECRET' : 'JWT_REFRESH_SECRET';
    add(missing, 'must be set together with the other secret (or leave both unset in development)');
  }
  if (algorithm === 'HS256') {
    if (get('JWT_PRIVATE_KEY_FILE') !== undefined)
      add('JWT_PRIVATE_KEY_FILE', 'needs JWT_ACCESS_ALGORITHM=EdDSA or ES256');
    if (get('JWT_PUBLIC_KEY_FILE') !== undefined)
      add('JWT_PUBLIC_KEY_FILE', 'needs JWT_ACCESS_ALGORITHM=EdDSA or ES256');
  } else if (algorithm === 'EdDSA' || algorithm === 'ES256') {
    if (get('JWT_PRIVATE_KEY_FILE') === undefined) {
      add('JWT_PRIVATE_KEY_FILE', `is required with JWT_ACCESS_ALGORITHM=${algorithm} (a PKCS#8 PEM file)`);
    }
    if (get('JWT_PUBLIC_KEY_FILE') === undefined) {
      add('JWT_PUBLIC_KEY_FILE', `is required with JWT_ACCESS_ALGORITHM=${algorithm} (an SPKI PEM file)`);
    }
  }
  const cors = get('CORS_ORIGINS');
  if (cors === undefined) {
    if (production)
      add('CORS_ORIGINS', 'is required when NODE_ENV=production (comma-separated exact origins)');
  } else {
    const entries = cors.split(',').map((e) => e.trim());
    if (entries.every((e) => e === '')) add('CORS_ORIGINS', 'lists no origin');
    for (const entry of entries.filter((e) => e !== '')) {
      const problem = originProblem(entry);
      if (problem !== null) add('CORS_ORIGINS', problem);
      // Cookies are Secure in production: an http origin could never use them, and sends them in clear.
      else if (production && entry.startsWith('http:'))
        add('CORS_ORIGINS', `"${entry}" must use https when NODE_ENV=production`);
    }
  }
  if (production) {
    for (const [name, what] of [
      ['APP_URL', 'the https URL of the web application the links in emails open'],
      ['SMTP_URL', 'smtp://user:pass@host:587, or smtps:// for TLS'],
      ['MAIL_FROM', 'the sender address of emails'],
    ] as const) {
      if (get(name) === undefined) add(name, `is required when NODE_ENV=production (${what})`);
    }
    const appUrl = get('APP_URL');
    if (appUrl?.startsWith('http:')) add('APP_URL', 'must use https when NODE_ENV=production');
  }
  const metricsToken = get('METRICS_TOKEN');
  if (production && metricsToken !== undefined) {
    const problem = secretStrengthProblem(metricsToken);
    if (problem !== null) add('METRICS_TOKEN', `${problem} when NODE_ENV=production (${GENERATE_SECRET})`);
  }
  if (production && get('PUBLIC_URL')?.startsWith('http:'))
    add('PUBLIC_URL', 'must use https when NODE_ENV=production');
  const allowLoopback = get('OUTBOUND_ALLOW_LOOPBACK');
  const olderName = get('SSO_ALLOW_INSECURE_ISSUERS');
  for (const [name, value] of [
    ['OUTBOUND_ALLOW_LOOPBACK', allowLoopback],
    ['SSO_ALLOW_INSECURE_ISSUERS', olderName],
  ] as const)
    if (production && /^\s*(1|true|yes|on)\s*$/i.test(value ?? ''))
      add(
        name,
        'is not allowed when NODE_ENV=production (identity providers, SAML endpoints and webhooks use https to public addresses)',
      );
  const flag = (v: string | undefined) => (v === undefined ? undefined : /^\s*(1|true)\s*$/i.test(v));
  if (allowLoopback !== undefined && olderName !== undefined && flag(allowLoopback) !== flag(olderName))
    add(
      'SSO_ALLOW_INSECURE_ISSUERS',
      'is the older name of OUTBOUND_ALLOW_LOOPBACK and says otherwise: keep OUTBOUND_ALLOW_LOOPBACK only',
    );
  if (production && get('ENCRYPTION_KEY') === undefined)
    add('ENCRYPTION_KEY', `is required when NODE_ENV=production (32 random bytes: ${GENERATE_SECRET})`);
  const keyText = (text: string | undefined) => {
    const key = text === undefined ? undefined : encryptionKeyOf(text);
    return key && Buffer.from(key).toString('base64url');
  };
  const previous = (get('ENCRYPTION_KEY_PREVIOUS')?.split(',') ?? []).map(keyText);
  const current = keyText(get('ENCRYPTION_KEY'));
  if (current !== undefined && previous.includes(current))
    add('ENCRYPTION_KEY_PREVIOUS', 'holds ENCRYPTION_KEY itself: list only the older keys');
  if (new Set(previous.filter((k) => k !== undefined)).size < previous.filter((k) => k !== undefined).length)
    add('ENCRYPTION_KEY_PREVIOUS', 'holds one key twice');
  if (production && get('DATABASE_URL') === 'memory:')
    add('DATABASE_URL', 'memory: is not allowed when NODE_ENV=production (every account is lost on restart)');
  // Production policy of this server, on top of tenant-auth's own checks (a cost from 4 to 31).
  const cost = get('BCRYPT_COST');
  if (production && cost !== undefined && /^\s*\d+\s*$/.test(cost) && Number(cost) < 10)
    add('BCRYPT_COST', `must be at least 10 when NODE_ENV=production (got ${cost.trim()})`);
  return issues;
}

/**
 * Reads and validates the configuration from environment variables. Throws `ConfigError` naming every
 * bad variable. Does no I/O: secrets kept in the data folder are filled in by `resolveSecrets`.
 *
 * @example
 * const config = parseConfig({ NODE_ENV: 'production', JWT_SECRET: '…', JWT_REFRESH_SECRET: '…', CORS_ORIGINS: 'https://app.example.com' });
 */
export function parseConfig(
  env: Record<string, string | undefined>,
  options: { defaultDataDir?: string; cwd?: string } = {},
): ServerConfig {
  const parsed = schema.safeParse(env);
  const issues: ConfigIssue[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? 'environment'),
        message: issue.message,
      }));
  issues.push(...crossChecks(env));
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  const e = parsed.data;
  const cwd = options.cwd ?? process.cwd();
  const dataDir =
    e.DATA_DIR === undefined
      ? (options.defaultDataDir ?? DEFAULT_DATA_DIR)
      : isAbsolute(e.DATA_DIR)
        ? e.DATA_DIR
        : resolve(cwd, e.DATA_DIR);
  const database: DatabaseConfig =
    e.DATABASE_URL === undefined
      ? { kind: 'pglite', dataDir: resolve(dataDir, 'pglite') }
      : e.DATABASE_URL === 'memory:'
        ? { kind: 'memory' }
        : { kind: 'postgres', url: e.DATABASE_URL };
  const production = e.NODE_ENV === 'production';
  const origins =
    e.CORS_ORIGINS === undefined
      ? [...DEVELOPMENT_ORIGINS]
      : [
          ...new Set(
            e.CORS_ORIGINS.split(',')
              .map((s) => s.trim())
              .filter((s) => s !== ''),
          ),
        ];
  const file = (p: string | undefined) => (p === undefined ? undefined : resolve(cwd, p));
  return {
    port: e.PORT,
    nodeEnv: e.NODE_ENV,
    production,
    dataDir,
    database,
    jwt: {
      secret: e.JWT_SECRET,
      refreshSecret: e.JWT_REFRESH_SECRET,
      accessAlgorithm: e.JWT_ACCESS_ALGORITHM,
      privateKeyFile: file(e.JWT_PRIVATE_KEY_FILE),
      publicKeyFile: file(e.JWT_PUBLIC_KEY_FILE),
    },
    origins,
    trustProxy: e.TRUST_PROXY,
    trustedProxies: e.TRUSTED_PROXIES,
    // Development is for one machine: reachable from elsewhere only when HOST says so.
    host: e.HOST ?? (production ? '::' : '127.0.0.1'),
    redisUrl: e.REDIS_URL,
    rateLimit: {
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      strict: e.RATE_LIMIT_AUTH_MAX,
      network: e.RATE_LIMIT_NETWORK_MAX,
      general: e.RATE_LIMIT_MAX,
      account: e.LOGIN_FAILURES_PER_ACCOUNT,
      scim: e.SCIM_RATE_LIMIT_MAX,
    },
    bcryptCost: e.BCRYPT_COST,
    passwordHashingNetworkShare: e.PASSWORD_HASHING_NETWORK_SHARE,
    refreshReuseGraceSeconds: e.REFRESH_REUSE_GRACE_SECONDS,
    logLevel: e.LOG_LEVEL,
    checkSessionOnVerify: e.CHECK_SESSION_ON_VERIFY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_SECONDS * 1000,
    threadPoolNice: e.THREAD_POOL_NICE,
    mail: {
      appUrl: e.APP_URL ?? DEFAULT_APP_URL,
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM ?? DEFAULT_MAIL_FROM,
    },
    invitationTtlSeconds: e.INVITATION_TTL_SECONDS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    apiKeyCacheSeconds: e.API_KEY_CACHE_SECONDS,
    metricsToken: e.METRICS_TOKEN,
    mfa: {
      encryptionKey: e.ENCRYPTION_KEY === undefined ? undefined : encryptionKeyOf(e.ENCRYPTION_KEY),
      previousEncryptionKeys: (e.ENCRYPTION_KEY_PREVIOUS?.split(',') ?? []).flatMap((entry) => {
        const key = encryptionKeyOf(entry);
        return key === undefined ? [] : [key];
      }),
      reauthMaxAgeSeconds: e.REAUTH_MAX_AGE_SECONDS,
      failuresPerAccount: e.MFA_FAILURES_PER_ACCOUNT,
      totpIssuer: e.TOTP_ISSUER,
    },
    webauthn: passkeysUnavailableReason(e, e.APP_URL ?? DEFAULT_APP_URL, production)
      ? undefined
      : webauthnConfigOf(e, e.APP_URL ?? DEFAULT_APP_URL),
    passkeysUnavailable: passkeysUnavailableReason(e, e.APP_URL ?? DEFAULT_APP_URL, production),
    sso: {
      publicUrl: (e.PUBLIC_URL ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, ''),
      dnsServers: e.DNS_SERVERS?.split(',').map((entry) => entry.trim()),
    },
    outbound: { allowLoopback: e.OUTBOUND_ALLOW_LOOPBACK || e.SSO_ALLOW_INSECURE_ISSUERS === true },
    webhookRetryScheduleSeconds: (e.WEBHOOK_RETRY_SCHEDULE_SECONDS ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE)
      .split(',')
      .map((entry) => Number(entry.trim())),
  };
}

/**
 * A one-line description of the database for the start-up log, without any password.
 *
 * @example describeDatabase({ kind: 'memory' }); // 'in-memory PGlite (nothing is kept)'
 */
export function describeDatabase(database: DatabaseConfig, cwd: string = process.cwd()): string {
  switch (database.kind) {
    case 'memory':
      return 'in-memory PGlite (nothing is kept)';
    case 'pglite': {
      const rel = database.dataDir.startsWith(`${cwd}/`)
        ? `./${database.dataDir.slice(cwd.length + 1)}`
        : database.dataDir;
      return `embedded PGlite at ${rel}`;
    }
    case 'postgres': {
      try {
        const url = new URL(database.url);
        return `PostgreSQL at ${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
      } catch {
        return 'PostgreSQL';
      }
    }
  }
}

/**
 * The configuration from the environment, or exit 1 naming each bad variable (for the entry points).
 *
 * @example const config = loadConfigOrExit('tenant-auth migrate');
 */
export function loadConfigOrExit(program: string, env: NodeJS.ProcessEnv = process.env): ServerConfig {
  try {
    return parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${program}: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
