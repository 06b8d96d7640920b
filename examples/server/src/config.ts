import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The environments the server knows; `test` behaves like `development`. */
export type NodeEnv = 'development' | 'production' | 'test';

/** Where the data lives. */
export type DatabaseConfig =
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'memory' }
  | { kind: 'postgres'; url: string };

/** Algorithms the server can sign access tokens with. Refresh tokens always use HS256. */
export type AccessAlgorithm = 'HS256' | 'EdDSA' | 'ES256';

/** The validated configuration of the reference server (API.md, "Configuration of the reference server"). */
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
  corsOrigins: string[];
  /** Number of trusted proxy hops in front of the server. */
  trustProxy: number;
  redisUrl: string | undefined;
  rateLimit: {
    windowSeconds: number;
    authMax: number;
    max: number;
    loginFailuresPerAccount: number;
  };
  bcryptCost: number;
  refreshReuseGraceSeconds: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Check on every request that the access token's session is still active. */
  checkSessionOnVerify: boolean;
  /** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
  shutdownTimeoutMs: number;
}

/** The allowed origins in development when `CORS_ORIGINS` is unset (API.md). */
export const DEVELOPMENT_ORIGINS = ['http://localhost:5173', 'http://localhost:3000'] as const;

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

const booleanFlag = (fallback: boolean) =>
  z.preprocess(
    (v) => (v === undefined || v === '' ? String(fallback) : String(v).toLowerCase()),
    z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .transform((v) => v === 'true' || v === '1'),
  );

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Parses one `CORS_ORIGINS` entry; returns a message when it is not an exact origin. */
function originProblem(entry: string): string | null {
  if (entry === '*' || entry === 'null') return `"${entry}" is not allowed; list exact origins`;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `"${entry}" is not a URL origin such as https://app.example.com`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `"${entry}" must use http or https`;
  if (url.origin !== entry) {
    return `"${entry}" is not an exact origin (scheme://host[:port], no path or trailing slash; did you mean ${url.origin}?)`;
  }
  return null;
}

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
  REDIS_URL: optionalString.refine(
    (v) => v === undefined || isUrl(v, ['redis:', 'rediss:']),
    'must be a redis:// or rediss:// URL with a host',
  ),
  RATE_LIMIT_WINDOW_SECONDS: integer('RATE_LIMIT_WINDOW_SECONDS', 1, 86_400, 60),
  RATE_LIMIT_AUTH_MAX: integer('RATE_LIMIT_AUTH_MAX', 1, 1_000_000, 10),
  RATE_LIMIT_MAX: integer('RATE_LIMIT_MAX', 1, 1_000_000, 300),
  LOGIN_FAILURES_PER_ACCOUNT: integer('LOGIN_FAILURES_PER_ACCOUNT', 1, 1_000_000, 10),
  BCRYPT_COST: integer('BCRYPT_COST', 4, 31, 12),
  REFRESH_REUSE_GRACE_SECONDS: integer('REFRESH_REUSE_GRACE_SECONDS', 0, 300, 10),
  LOG_LEVEL: z.preprocess(
    (v) => (v === undefined || v === '' ? 'info' : v),
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  ),
  CHECK_SESSION_ON_VERIFY: booleanFlag(false),
  SHUTDOWN_TIMEOUT_SECONDS: integer('SHUTDOWN_TIMEOUT_SECONDS', 0, 600, 10),
});

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
    if (value === undefined) {
      if (production) add(name, 'is required when NODE_ENV=production (at least 32 bytes of random data)');
    } else if (Buffer.byteLength(value, 'utf8') < 32) {
      add(name, `must be at least 32 bytes (got ${Buffer.byteLength(value, 'utf8')})`);
    }
  }
  if ((secret === undefined) !== (refreshSecret === undefined) && !production) {
    const missing = secret === undefined ? 'JWT_SECRET' : 'JWT_REFRESH_SECRET';
    add(missing, 'must be set together with the other secret (or leave both unset in development)');
  }
  if (secret !== undefined && secret === refreshSecret)
    add('JWT_REFRESH_SECRET', 'must differ from JWT_SECRET');
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
  if (production && get('DATABASE_URL') === 'memory:')
    add('DATABASE_URL', 'memory: is not allowed when NODE_ENV=production (every account is lost on restart)');
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
  const corsOrigins =
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
    corsOrigins,
    trustProxy: e.TRUST_PROXY,
    redisUrl: e.REDIS_URL,
    rateLimit: {
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      authMax: e.RATE_LIMIT_AUTH_MAX,
      max: e.RATE_LIMIT_MAX,
      loginFailuresPerAccount: e.LOGIN_FAILURES_PER_ACCOUNT,
    },
    bcryptCost: e.BCRYPT_COST,
    refreshReuseGraceSeconds: e.REFRESH_REUSE_GRACE_SECONDS,
    logLevel: e.LOG_LEVEL,
    checkSessionOnVerify: e.CHECK_SESSION_ON_VERIFY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
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
