import { readFileSync } from 'node:fs';
import { createMemoryStores } from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { createAuth } from './auth.js';
import { CONFIG_VARIABLES, ConfigError, DEFAULT_DATA_DIR, describeDatabase, parseConfig } from './config.js';

const SECRET = 'q3Z8vJx1Wm4pT0bL6yN2rK9sD5hF7gC3aE1uI8oV4wX';
const REFRESH = 'Hn2Lk7Qw9Ep4Rt1Yu6Io3Pa8Sd5Fg0Jh2Kl9Zx7Cv4Bm';
const production = {
  NODE_ENV: 'production',
  JWT_SECRET: SECRET,
  JWT_REFRESH_SECRET: REFRESH,
  ENCRYPTION_KEY: 'W9cQeF2da1jLD8OOWHzwKglR98V0FdmsYxux0olmio0',
  CORS_ORIGINS: 'https://app.example.com',
  APP_URL: 'https://app.example.com',
  SMTP_URL: 'smtp://mailer:secret@smtp.example.com:587',
  MAIL_FROM: 'Example <no-reply@example.com>',
};

describe('the configuration table of the README', () => {
  it('has a row for every variable the server reads', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const rows = readme.split('\n').filter((l) => l.startsWith('| `'));
    const named = new Set(
      rows.flatMap((r) => [...(r.split(' | ')[0] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1])),
    );
    const missing = CONFIG_VARIABLES.filter(
      (v) => !named.has(v) && !rows.some((r) => r.includes(`older name: \`${v}\``)),
    );
    expect(CONFIG_VARIABLES).toContain('HOST');
    expect(missing).toEqual([]);
  });
});

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
  it('applies the defaults of docs/http-api.md', () => {
    const c = parseConfig({});
    expect(c.port).toBe(4000);
    expect(c.nodeEnv).toBe('development');
    expect(c.production).toBe(false);
    expect(c.database).toEqual({ kind: 'pglite', dataDir: `${DEFAULT_DATA_DIR}/pglite` });
    expect(c.dataDir).toBe(DEFAULT_DATA_DIR);
    expect(DEFAULT_DATA_DIR).toMatch(/examples\/server\/data$/);
    expect(c.jwt).toMatchObject({ secret: undefined, refreshSecret: undefined, accessAlgorithm: 'HS256' });
    expect(c.origins).toEqual(['http://localhost:5173', 'http://localhost:3000']);
    expect(c.trustProxy).toBe(0);
    expect(c.redisUrl).toBeUndefined();
    // Unset: tenant-auth's own defaults apply (10, 300, 10 per 60 s, cost 12, grace 10 s).
    expect(c.rateLimit).toEqual({
      windowSeconds: undefined,
      strict: undefined,
      general: undefined,
      account: undefined,
    });
    expect(c.bcryptCost).toBeUndefined();
    expect(c.refreshReuseGraceSeconds).toBeUndefined();
    expect(c.logLevel).toBe('info');
    expect(c.checkSessionOnVerify).toBe(false);
    expect(c.shutdownTimeoutMs).toBe(10_000);
    expect(c.threadPoolNice).toBe(10);
  });

  it('reads THREAD_POOL_NICE from 0 to 19 and refuses anything else', () => {
    expect(parseConfig({ THREAD_POOL_NICE: '0' }).threadPoolNice).toBe(0);
    expect(parseConfig({ THREAD_POOL_NICE: '19' }).threadPoolNice).toBe(19);
    for (const bad of ['-1', '20', 'low']) {
      expect(issues({ THREAD_POOL_NICE: bad })).toEqual([
        { variable: 'THREAD_POOL_NICE', message: `must be an integer from 0 to 19 (got "${bad}")` },
      ]);
    }
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
      SCIM_RATE_LIMIT_MAX: '50',
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
      origins: ['https://a.example.com', 'http://localhost:8080'],
      trustProxy: 2,
      redisUrl: 'redis://cache:6379',
      rateLimit: { windowSeconds: 30, strict: 5, general: 100, account: 3, scim: 50 },
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
    expect(c.origins).toEqual(['https://app.example.com']);
  });

  it('accepts http origins, memory: and a low bcrypt cost outside production', () => {
    const c = parseConfig({
      CORS_ORIGINS: 'http://localhost:5173',
      DATABASE_URL: 'memory:',
      BCRYPT_COST: '4',
    });
    expect(c).toMatchObject({
      origins: ['http://localhost:5173'],
      database: { kind: 'memory' },
      bcryptCost: 4,
    });
    expect(parseConfig({ ...production, BCRYPT_COST: '10' }).bcryptCost).toBe(10);
  });

  it('refuses production without secrets, origins or mail settings, naming each variable', () => {
    const found = issues({ NODE_ENV: 'production' });
    expect(found.map((i) => i.variable).sort()).toEqual([
      'APP_URL',
      'CORS_ORIGINS',
      'ENCRYPTION_KEY',
      'JWT_REFRESH_SECRET',
      'JWT_SECRET',
      'MAIL_FROM',
      'SMTP_URL',
    ]);
    expect(found.find((i) => i.variable === 'JWT_SECRET')?.message).toMatch(
      /required when NODE_ENV=production/,
    );
    try {
      parseConfig({ NODE_ENV: 'production' });
    } catch (err) {
      expect((err as Error).message).toMatch(/^Invalid configuration:\n {2}JWT_SECRET: is required/m);
    }
  });

  it('reads the SSO settings (PUBLIC_URL, DNS_SERVERS), and refuses an http PUBLIC_URL in production', () => {
    expect(parseConfig({}).sso).toEqual({ publicUrl: 'http://localhost:4000', dnsServers: undefined });
    expect(
      parseConfig({ PUBLIC_URL: 'https://auth.example.com/', DNS_SERVERS: '127.0.0.1:5353, [::1]:53' }).sso,
    ).toEqual({ publicUrl: 'https://auth.example.com', dnsServers: ['127.0.0.1:5353', '[::1]:53'] });
    expect(
      issues({ PUBLIC_URL: 'ftp://x', DNS_SERVERS: 'dns.example.com:53' })
        .map((i) => i.variable)
        .sort(),
    ).toEqual(['DNS_SERVERS', 'PUBLIC_URL']);
    expect(issues({ ...production, PUBLIC_URL: 'http://auth.example.com' })).toEqual([
      { variable: 'PUBLIC_URL', message: 'must use https when NODE_ENV=production' },
    ]);
  });

  it('reads OUTBOUND_ALLOW_LOOPBACK, and SSO_ALLOW_INSECURE_ISSUERS as its older name', () => {
    expect(parseConfig({}).outbound).toEqual({ allowLoopback: false });
    for (const [env, allowLoopback] of [
      [{ OUTBOUND_ALLOW_LOOPBACK: 'true' }, true],
      [{ OUTBOUND_ALLOW_LOOPBACK: '1' }, true],
      [{ OUTBOUND_ALLOW_LOOPBACK: 'false' }, false],
      [{ OUTBOUND_ALLOW_LOOPBACK: '' }, false],
      [{ SSO_ALLOW_INSECURE_ISSUERS: 'true' }, true],
      [{ SSO_ALLOW_INSECURE_ISSUERS: '1' }, true],
      [{ SSO_ALLOW_INSECURE_ISSUERS: 'false' }, false],
      [{ OUTBOUND_ALLOW_LOOPBACK: 'true', SSO_ALLOW_INSECURE_ISSUERS: 'true' }, true],
      [{ OUTBOUND_ALLOW_LOOPBACK: 'false', SSO_ALLOW_INSECURE_ISSUERS: '0' }, false],
    ] as const)
      expect(parseConfig(env).outbound, JSON.stringify(env)).toEqual({ allowLoopback });
    // The two names saying opposite things is a mistake to point out, not a coin to toss.
    expect(issues({ OUTBOUND_ALLOW_LOOPBACK: 'false', SSO_ALLOW_INSECURE_ISSUERS: 'true' })).toEqual([
      {
        variable: 'SSO_ALLOW_INSECURE_ISSUERS',
        message:
          'is the older name of OUTBOUND_ALLOW_LOOPBACK and says otherwise: keep OUTBOUND_ALLOW_LOOPBACK only',
      },
    ]);
    expect(issues({ SSO_ALLOW_INSECURE_ISSUERS: 'yes' })).toEqual([
      { variable: 'SSO_ALLOW_INSECURE_ISSUERS', message: 'must be true or false' },
    ]);
  });

  it('refuses OUTBOUND_ALLOW_LOOPBACK and its older name in production', () => {
    const refused =
      'is not allowed when NODE_ENV=production (identity providers, SAML endpoints and webhooks use https to public addresses)';
    expect(issues({ ...production, OUTBOUND_ALLOW_LOOPBACK: 'true' })).toEqual([
      { variable: 'OUTBOUND_ALLOW_LOOPBACK', message: refused },
    ]);
    expect(issues({ ...production, SSO_ALLOW_INSECURE_ISSUERS: 'true' })).toEqual([
      { variable: 'SSO_ALLOW_INSECURE_ISSUERS', message: refused },
    ]);
    expect(parseConfig({ ...production, OUTBOUND_ALLOW_LOOPBACK: 'false' }).outbound).toEqual({
      allowLoopback: false,
    });
  });

  it('reads the mail settings, with development defaults, and refuses http links and bad URLs in production', () => {
    expect(parseConfig({}).mail).toEqual({
      appUrl: 'http://localhost:5173',
      smtpUrl: undefined,
      from: 'tenant-auth <no-reply@localhost>',
    });
    const config = parseConfig({ ...production, INVITATION_TTL_SECONDS: '3600', AUDIT_RETENTION_DAYS: '30' });
    expect(config.mail).toEqual({
      appUrl: 'https://app.example.com',
      smtpUrl: 'smtp://mailer:secret@smtp.example.com:587',
      from: 'Example <no-reply@example.com>',
    });
    expect(config.invitationTtlSeconds).toBe(3600);
    expect(config.auditRetentionDays).toBe(30);
    expect(issues({ ...production, APP_URL: 'http://app.example.com' })).toEqual([
      { variable: 'APP_URL', message: 'must use https when NODE_ENV=production' },
    ]);
    const bad = issues({
      SMTP_URL: 'http://user:hunter2@mail.example.com',
      APP_URL: 'ftp://x',
      AUDIT_RETENTION_DAYS: '0',
    });
    expect(bad.map((i) => i.variable).sort()).toEqual(['APP_URL', 'AUDIT_RETENTION_DAYS', 'SMTP_URL']);
    expect(JSON.stringify(bad)).not.toContain('hunter2');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', /integer from 0 to 65535/],
    [{ PORT: '70000' }, 'PORT', /integer from 0 to 65535/],
    [{ PORT: '1.5' }, 'PORT', /integer/],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV', /development, production or test/],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL', /postgres:\/\//],
    [{ DATABASE_URL: 'postgres://' }, 'DATABASE_URL', /with a host/],
    [{ DATABASE_URL: 'postgres://u:p@ss word@/db' }, 'DATABASE_URL', /^(?!.*ss word)/],
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
    [{ RATE_LIMIT_AUTH_MAX: 'ten' }, 'RATE_LIMIT_AUTH_MAX', /integer/],
    [{ SCIM_RATE_LIMIT_MAX: '6OO' }, 'SCIM_RATE_LIMIT_MAX', /integer/],
    [{ BCRYPT_COST: '12.5' }, 'BCRYPT_COST', /integer/],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', /one of fatal, error, warn, info/],
    [{ CHECK_SESSION_ON_VERIFY: 'yes' }, 'CHECK_SESSION_ON_VERIFY', /true or false/],
    [{ SHUTDOWN_TIMEOUT_SECONDS: 'x' }, 'SHUTDOWN_TIMEOUT_SECONDS', /integer/],
  ] as const)('refuses %o naming %s', (env, variable, message) => {
    const found = issues(env);
    expect(found).toContainEqual({ variable, message: expect.stringMatching(message) });
  });

  it.each([
    ['32 times the same letter', 'a'.repeat(32)],
    ['32 spaces', ' '.repeat(32)],
    ['a short word repeated', 'changeme'.repeat(4)],
    ['a placeholder', 'your-jwt-secret-goes-here-0123456789'],
    ['two characters repeated', 'ab'.repeat(40)],
  ])('refuses %s as a production secret, and says how to make one', (_name, weak) => {
    const found = issues({ ...production, JWT_SECRET: weak });
    expect(found).toEqual([
      {
        variable: 'JWT_SECRET',
        message: expect.stringMatching(
          /when NODE_ENV=production \(generate one with: node -e .*randomBytes\(32\)/,
        ),
      },
    ]);
  });

  it('accepts weak secrets outside production (tenant-auth still wants 32 bytes)', () => {
    expect(parseConfig({ JWT_SECRET: 'a'.repeat(32), JWT_REFRESH_SECRET: 'b'.repeat(32) }).jwt.secret).toBe(
      'a'.repeat(32),
    );
  });

  it('listens on loopback in development and on every interface in production, unless HOST says otherwise', () => {
    expect(parseConfig({}).host).toBe('127.0.0.1');
    expect(parseConfig(production).host).toBe('::');
    expect(parseConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(issues({ HOST: 'example.com' })).toEqual([
      { variable: 'HOST', message: expect.stringMatching(/IP address/) },
    ]);
  });

  it('reads TRUSTED_PROXIES as addresses and CIDRs, naming the entries that are not', () => {
    expect(parseConfig({ TRUSTED_PROXIES: '10.0.0.0/8, ::1, 192.168.1.7' }).trustedProxies).toBe(
      '10.0.0.0/8, ::1, 192.168.1.7',
    );
    expect(issues({ TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal,10.1.0.0/33' })).toEqual([
      {
        variable: 'TRUSTED_PROXIES',
        message: 'holds entries that are not addresses or CIDRs: proxy.internal, 10.1.0.0/33',
      },
    ]);
  });

  it('refuses a malformed TRUSTED_PROXIES entry instead of widening it, naming the entry', () => {
    // Each of these once parsed as something else: `10.0.0.1/` as 10.0.0.1/0, that is every IPv4 peer.
    for (const entry of [
      '10.0.0.1/', // an empty prefix length
      '10.0.0.0/ 8', // stray characters
      '10.0.0.0/0x8',
      '10.0.0.0/1e1',
      '10.0.0.0/+8',
      '10.0.0.0/08',
      '10.0.0.0/8.0',
      '10.0.0.0/-1', // out of range
      '::1/129',
      '10.0.0.256', // not an address
      'fe80::1%eth0',
      '/8',
    ]) {
      expect(issues({ TRUSTED_PROXIES: `192.168.0.0/16,${entry}` }), entry).toEqual([
        {
          variable: 'TRUSTED_PROXIES',
          message: `holds entries that are not addresses or CIDRs: ${entry}`,
        },
      ]);
    }
    expect(parseConfig({ TRUSTED_PROXIES: '10.0.0.0/0, ::/0, 10.0.0.1/32, ::1/128' }).trustedProxies).toBe(
      '10.0.0.0/0, ::/0, 10.0.0.1/32, ::1/128',
    );
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

describe('the values tenant-auth checks, reported by variable when the server is composed', () => {
  const parts = () => ({
    stores: createMemoryStores(),
    accessToken: { secret: SECRET },
    refreshSecret: REFRESH,
    encryptionKey: new Uint8Array(32).fill(7),
    rateLimitStore: undefined,
    onEvent: () => {},
    mailer: { send: async () => {} },
    logger: { error: () => {}, warn: () => {}, info: () => {} } as never,
  });

  function composeIssues(
    env: Record<string, string>,
    secrets: { secret?: string; refreshSecret?: string } = {},
  ) {
    const config = parseConfig(env);
    try {
      const auth = createAuth(config, {
        ...parts(),
        accessToken: { secret: secrets.secret ?? SECRET },
        refreshSecret: secrets.refreshSecret ?? REFRESH,
      });
      createApp({ config, auth, logger: parts().logger, ping: async () => {} });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).issues;
    }
    throw new Error('expected a ConfigError');
  }

  it.each([
    [{}, { secret: 'short' }, 'JWT_SECRET', /^must be at least 32 bytes \(got 5\)$/],
    [{}, { refreshSecret: 'short' }, 'JWT_REFRESH_SECRET', /at least 32 bytes/],
    [{}, { refreshSecret: SECRET }, 'JWT_REFRESH_SECRET', /^must differ from JWT_SECRET$/],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0' }, {}, 'RATE_LIMIT_WINDOW_SECONDS', /integer from 1/],
    [{ RATE_LIMIT_AUTH_MAX: '0' }, {}, 'RATE_LIMIT_AUTH_MAX', /integer >= 1/],
    [{ RATE_LIMIT_MAX: '0' }, {}, 'RATE_LIMIT_MAX', /integer >= 1/],
    [{ SCIM_RATE_LIMIT_MAX: '0' }, {}, 'SCIM_RATE_LIMIT_MAX', /positive integer/],
    [{ LOGIN_FAILURES_PER_ACCOUNT: '0' }, {}, 'LOGIN_FAILURES_PER_ACCOUNT', /integer >= 1/],
    [{ BCRYPT_COST: '3' }, {}, 'BCRYPT_COST', /integer from 4 to 31/],
    [{ BCRYPT_COST: '32' }, {}, 'BCRYPT_COST', /integer from 4 to 31/],
    [{ PASSWORD_HASHING_NETWORK_SHARE: '0' }, {}, 'PASSWORD_HASHING_NETWORK_SHARE', /positive integer/],
    [{ REFRESH_REUSE_GRACE_SECONDS: '-1' }, {}, 'REFRESH_REUSE_GRACE_SECONDS', /integer from 0 to 60/],
    [{ REFRESH_REUSE_GRACE_SECONDS: '61' }, {}, 'REFRESH_REUSE_GRACE_SECONDS', /integer from 0 to 60/],
    [{ REAUTH_MAX_AGE_SECONDS: '0' }, {}, 'REAUTH_MAX_AGE_SECONDS', /integer/],
    [{ MFA_FAILURES_PER_ACCOUNT: '0' }, {}, 'MFA_FAILURES_PER_ACCOUNT', /integer/],
  ] as const)('refuses %o %o naming %s', (env, secrets, variable, message) => {
    expect(composeIssues(env, secrets)).toEqual([{ variable, message: expect.stringMatching(message) }]);
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

describe('METRICS_TOKEN', () => {
  it('is unset by default and read as given', () => {
    expect(parseConfig({}).metricsToken).toBeUndefined();
    expect(parseConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(parseConfig({ METRICS_TOKEN: 'abc-DEF_123.~+/==' }).metricsToken).toBe('abc-DEF_123.~+/==');
    expect(parseConfig({ ...production, METRICS_TOKEN: SECRET }).metricsToken).toBe(SECRET);
  });

  it.each([
    ['a space', {}, 'two words'],
    ['a quote', {}, 'tok"en'],
    ['padding in the middle', {}, 'ab=cd'],
    ['a weak token in production', production, 'metrics'.repeat(5)],
    ['a placeholder in production', production, `change-me-${SECRET}`],
  ])('refuses %s, without repeating it', (_name, env, token) => {
    const found = issues({ ...env, METRICS_TOKEN: token });
    expect(found).toEqual([{ variable: 'METRICS_TOKEN', message: expect.any(String) }]);
    expect(found[0]?.message).not.toContain(token);
  });
});
