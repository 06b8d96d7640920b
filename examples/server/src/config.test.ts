import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_DATA_DIR, describeDatabase, parseConfig } from './config.js';

const SECRET = 'a'.repeat(32);
const REFRESH = 'b'.repeat(32);
const production = {
  NODE_ENV: 'production',
  JWT_SECRET: SECRET,
  JWT_REFRESH_SECRET: REFRESH,
  CORS_ORIGINS: 'https://app.example.com',
};

function issues(env: Record<string, string | undefined>) {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('applies the defaults of API.md', () => {
    const c = parseConfig({});
    expect(c.port).toBe(4000);
    expect(c.nodeEnv).toBe('development');
    expect(c.production).toBe(false);
    expect(c.database).toEqual({ kind: 'pglite', dataDir: `${DEFAULT_DATA_DIR}/pglite` });
    expect(c.dataDir).toBe(DEFAULT_DATA_DIR);
    expect(DEFAULT_DATA_DIR).toMatch(/examples\/server\/data$/);
    expect(c.jwt).toMatchObject({ secret: undefined, refreshSecret: undefined, accessAlgorithm: 'HS256' });
    expect(c.corsOrigins).toEqual(['http://localhost:5173', 'http://localhost:3000']);
    expect(c.trustProxy).toBe(0);
    expect(c.redisUrl).toBeUndefined();
    expect(c.rateLimit).toEqual({ windowSeconds: 60, authMax: 10, max: 300, loginFailuresPerAccount: 10 });
    expect(c.bcryptCost).toBe(12);
    expect(c.refreshReuseGraceSeconds).toBe(10);
    expect(c.logLevel).toBe('info');
    expect(c.checkSessionOnVerify).toBe(false);
    expect(c.shutdownTimeoutMs).toBe(10_000);
  });

  it('reads every variable', () => {
    const c = parseConfig({
      PORT: '8080',
      NODE_ENV: 'test',
      DATABASE_URL: 'postgres://u:p@db:5432/app',
      JWT_SECRET: SECRET,
      JWT_REFRESH_SECRET: REFRESH,
      CORS_ORIGINS: 'https://a.example.com, http://localhost:8080,https://a.example.com',
      TRUST_PROXY: '2',
      REDIS_URL: 'redis://cache:6379',
      RATE_LIMIT_WINDOW_SECONDS: '30',
      RATE_LIMIT_AUTH_MAX: '5',
      RATE_LIMIT_MAX: '100',
      LOGIN_FAILURES_PER_ACCOUNT: '3',
      BCRYPT_COST: '4',
      REFRESH_REUSE_GRACE_SECONDS: '0',
      LOG_LEVEL: 'debug',
      CHECK_SESSION_ON_VERIFY: 'true',
      SHUTDOWN_TIMEOUT_SECONDS: '2',
      DATA_DIR: '/tmp/x',
    });
    expect(c).toMatchObject({
      port: 8080,
      nodeEnv: 'test',
      database: { kind: 'postgres', url: 'postgres://u:p@db:5432/app' },
      jwt: { secret: SECRET, refreshSecret: REFRESH },
      corsOrigins: ['https://a.example.com', 'http://localhost:8080'],
      trustProxy: 2,
      redisUrl: 'redis://cache:6379',
      rateLimit: { windowSeconds: 30, authMax: 5, max: 100, loginFailuresPerAccount: 3 },
      bcryptCost: 4,
      refreshReuseGraceSeconds: 0,
      logLevel: 'debug',
      checkSessionOnVerify: true,
      shutdownTimeoutMs: 2000,
      dataDir: '/tmp/x',
    });
    expect(parseConfig({ DATABASE_URL: 'memory:' }).database).toEqual({ kind: 'memory' });
    expect(parseConfig({ DATABASE_URL: 'postgresql://db/app' }).database.kind).toBe('postgres');
    expect(parseConfig({ DATABASE_URL: 'postgresql:///app?host=/var/run/postgresql' }).database.kind).toBe(
      'postgres',
    );
    expect(parseConfig({ DATA_DIR: 'rel', DATABASE_URL: '' }, { cwd: '/srv' }).database).toEqual({
      kind: 'pglite',
      dataDir: '/srv/rel/pglite',
    });
  });

  it('accepts a complete production configuration', () => {
    const c = parseConfig(production);
    expect(c.production).toBe(true);
    expect(c.corsOrigins).toEqual(['https://app.example.com']);
  });

  it('accepts http origins, memory: and a low bcrypt cost outside production', () => {
    const c = parseConfig({
      CORS_ORIGINS: 'http://localhost:5173',
      DATABASE_URL: 'memory:',
      BCRYPT_COST: '4',
    });
    expect(c).toMatchObject({
      corsOrigins: ['http://localhost:5173'],
      database: { kind: 'memory' },
      bcryptCost: 4,
    });
    expect(parseConfig({ ...production, BCRYPT_COST: '10' }).bcryptCost).toBe(10);
  });

  it('refuses production without secrets or origins, naming each variable', () => {
    const found = issues({ NODE_ENV: 'production' });
    expect(found.map((i) => i.variable).sort()).toEqual(['CORS_ORIGINS', 'JWT_REFRESH_SECRET', 'JWT_SECRET']);
    expect(found.find((i) => i.variable === 'JWT_SECRET')?.message).toMatch(
      /required when NODE_ENV=production/,
    );
    try {
      parseConfig({ NODE_ENV: 'production' });
    } catch (err) {
      expect((err as Error).message).toMatch(/^Invalid configuration:\n {2}JWT_SECRET: is required/m);
    }
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', /integer from 0 to 65535/],
    [{ PORT: '70000' }, 'PORT', /integer from 0 to 65535/],
    [{ PORT: '1.5' }, 'PORT', /integer/],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV', /development, production or test/],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL', /postgres:\/\//],
    [{ DATABASE_URL: 'postgres://' }, 'DATABASE_URL', /with a host/],
    [{ DATABASE_URL: 'postgres://u:p@ss word@/db' }, 'DATABASE_URL', /^(?!.*ss word)/],
    [{ JWT_SECRET: 'short', JWT_REFRESH_SECRET: REFRESH }, 'JWT_SECRET', /at least 32 bytes \(got 5\)/],
    [{ ...production, JWT_REFRESH_SECRET: 'short' }, 'JWT_REFRESH_SECRET', /at least 32 bytes/],
    [{ ...production, JWT_REFRESH_SECRET: SECRET }, 'JWT_REFRESH_SECRET', /must differ from JWT_SECRET/],
    [{ JWT_SECRET: SECRET }, 'JWT_REFRESH_SECRET', /together/],
    [{ JWT_ACCESS_ALGORITHM: 'RS256' }, 'JWT_ACCESS_ALGORITHM', /HS256, EdDSA or ES256/],
    [{ JWT_ACCESS_ALGORITHM: 'EdDSA' }, 'JWT_PRIVATE_KEY_FILE', /required with JWT_ACCESS_ALGORITHM=EdDSA/],
    [{ JWT_ACCESS_ALGORITHM: 'ES256', JWT_PRIVATE_KEY_FILE: 'k' }, 'JWT_PUBLIC_KEY_FILE', /required/],
    [{ JWT_PRIVATE_KEY_FILE: 'k' }, 'JWT_PRIVATE_KEY_FILE', /needs JWT_ACCESS_ALGORITHM/],
    [{ ...production, CORS_ORIGINS: '*' }, 'CORS_ORIGINS', /not allowed/],
    [{ CORS_ORIGINS: 'null' }, 'CORS_ORIGINS', /not allowed/],
    [
      { ...production, CORS_ORIGINS: 'https://app.example.com,http://app.example.com' },
      'CORS_ORIGINS',
      /"http:\/\/app.example.com" must use https when NODE_ENV=production/,
    ],
    [
      { ...production, DATABASE_URL: 'memory:' },
      'DATABASE_URL',
      /memory: is not allowed when NODE_ENV=production/,
    ],
    [{ ...production, BCRYPT_COST: '9' }, 'BCRYPT_COST', /at least 10 when NODE_ENV=production \(got 9\)/],
    [
      { CORS_ORIGINS: 'https://app.example.com/' },
      'CORS_ORIGINS',
      /exact origin.*did you mean https:\/\/app.example.com\?/,
    ],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, 'CORS_ORIGINS', /exact origin/],
    [{ CORS_ORIGINS: 'app.example.com' }, 'CORS_ORIGINS', /not a URL origin/],
    [{ CORS_ORIGINS: 'ftp://app.example.com' }, 'CORS_ORIGINS', /http or https/],
    [{ CORS_ORIGINS: ' , ' }, 'CORS_ORIGINS', /lists no origin/],
    [{ TRUST_PROXY: '-1' }, 'TRUST_PROXY', /integer from 0/],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY', /integer/],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL', /redis:\/\//],
    [{ REDIS_URL: 'redis://' }, 'REDIS_URL', /with a host/],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0' }, 'RATE_LIMIT_WINDOW_SECONDS', /integer from 1/],
    [{ RATE_LIMIT_AUTH_MAX: 'ten' }, 'RATE_LIMIT_AUTH_MAX', /integer/],
    [{ RATE_LIMIT_MAX: '0' }, 'RATE_LIMIT_MAX', /integer from 1/],
    [{ LOGIN_FAILURES_PER_ACCOUNT: '0' }, 'LOGIN_FAILURES_PER_ACCOUNT', /integer from 1/],
    [{ BCRYPT_COST: '3' }, 'BCRYPT_COST', /integer from 4 to 31/],
    [{ BCRYPT_COST: '32' }, 'BCRYPT_COST', /integer from 4 to 31/],
    [{ REFRESH_REUSE_GRACE_SECONDS: '-1' }, 'REFRESH_REUSE_GRACE_SECONDS', /integer from 0/],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', /one of fatal, error, warn, info/],
    [{ CHECK_SESSION_ON_VERIFY: 'yes' }, 'CHECK_SESSION_ON_VERIFY', /true or false/],
    [{ SHUTDOWN_TIMEOUT_SECONDS: 'x' }, 'SHUTDOWN_TIMEOUT_SECONDS', /integer/],
  ] as const)('refuses %o naming %s', (env, variable, message) => {
    const found = issues(env);
    expect(found).toContainEqual({ variable, message: expect.stringMatching(message) });
  });

  it('treats empty variables as unset', () => {
    expect(
      parseConfig({ PORT: '', NODE_ENV: '', DATABASE_URL: '', LOG_LEVEL: '', REDIS_URL: '' }),
    ).toMatchObject({
      port: 4000,
      nodeEnv: 'development',
      logLevel: 'info',
      redisUrl: undefined,
    });
  });
});

describe('describeDatabase', () => {
  it('names the database without a password', () => {
    expect(describeDatabase({ kind: 'pglite', dataDir: '/srv/app/data/pglite' }, '/srv/app')).toBe(
      'embedded PGlite at ./data/pglite',
    );
    expect(describeDatabase({ kind: 'memory' })).toMatch(/in-memory PGlite/);
    expect(describeDatabase({ kind: 'postgres', url: 'postgres://u:secret@db:5433/app' })).toBe(
      'PostgreSQL at db:5433/app',
    );
  });
});
