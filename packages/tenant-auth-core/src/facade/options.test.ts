import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../memory/memory-stores.js';
import { isOptionalStore, STORE_NAMES } from '../ports/store-names.js';
import type { TenantAuthStores } from '../ports/tenant-auth-stores.js';
import { isTenantAuthError } from '../vocabulary/errors.js';
import { createTenantAuth } from './create-tenant-auth.js';
import type { TenantAuthOptions } from './options.js';

const quiet = { error: () => {}, warn: () => {}, info: () => {} };

/** Stores that fail the test if anything touches them: configuration errors come before any I/O. */
function untouchableStores(): TenantAuthStores {
  const trap = new Proxy({}, { get: () => () => Promise.reject(new Error('a store was called')) });
  return {
    ...Object.fromEntries(STORE_NAMES.map((name) => [name, trap])),
    transaction: () => Promise.reject(new Error('I/O')),
  } as never;
}

const valid = (): TenantAuthOptions => ({
  stores: untouchableStores(),
  accessToken: { secret: 'access-secret-access-secret-0123456789' },
  refreshSecret: 'refresh-secret-refresh-secret-0123456789',
  rateLimit: false,
  logger: quiet,
});

function configError(options: unknown): { option: string | undefined; message: string } {
  try {
    createTenantAuth(options as TenantAuthOptions);
  } catch (err) {
    if (isTenantAuthError(err, 'invalid_configuration')) return { option: err.option, message: err.message };
    throw err;
  }
  throw new Error('expected invalid_configuration');
}

describe('createTenantAuth configuration errors', () => {
  it('accepts a valid configuration without touching the stores', () => {
    expect(() => createTenantAuth(valid())).not.toThrow();
  });

  it.each([
    ['stores', { stores: undefined }],
    ['stores.transaction', { stores: { ...createMemoryStores(), transaction: undefined } }],
    ['accessToken', { accessToken: undefined }],
    ['accessToken.secret', { accessToken: { secret: undefined } }],
    ['accessToken.secret', { accessToken: { secret: 'short' } }],
    ['accessToken.keys', { accessToken: { algorithm: 'EdDSA', keys: [] } }],
    [
      'accessToken.keys',
      { accessToken: { algorithm: 'EdDSA', keys: [{ kid: 'k', publicKey: 'not a pem' }] } },
    ],
    ['accessToken.keys', { accessToken: { algorithm: 'ES256' } }],
    ['refreshSecret', { refreshSecret: undefined }],
    ['refreshSecret', { refreshSecret: 'x'.repeat(31) }],
    ['refreshSecret', { refreshSecret: 'access-secret-access-secret-0123456789' }],
    ['issuer', { issuer: '' }],
    ['accessTokenTtlSeconds', { accessTokenTtlSeconds: 0 }],
    ['refreshTokenTtlSeconds', { refreshTokenTtlSeconds: 1.5 }],
    ['refreshReuseGraceSeconds', { refreshReuseGraceSeconds: -1 }],
    ['refreshReuseGraceSeconds', { refreshReuseGraceSeconds: 61 }],
    ['cleanupBatchSize', { cleanupBatchSize: 0 }],
    ['passwordHashing.cost', { passwordHashing: { cost: 3 } }],
    ['passwordHashing.pepper', { passwordHashing: { pepper: '' } }],
    ['passwordPolicy.minLength', { passwordPolicy: { minLength: -1 } }],
    ['rateLimit.strict', { rateLimit: { strict: 0 } }],
    ['rateLimit.store', { rateLimit: { store: {} } }],
    ['rateLimit.accountKeySecret', { rateLimit: { accountKeySecret: '' } }],
    ['checkSessionOnVerify.cacheTtlSeconds', { checkSessionOnVerify: { cacheTtlSeconds: 61 } }],
    ['rateLimit.mfaFailuresPerAccount', { rateLimit: { mfaFailuresPerAccount: 0 } }],
    ['reauthMaxAgeSeconds', { reauthMaxAgeSeconds: 0 }],
    ['totpIssuer', { totpIssuer: ' ' }],
    ['dataKeys', { dataKeys: 'secret' }],
    ['dataKeys.current.key', { dataKeys: { current: { id: 'k1', key: new Uint8Array(16) } } }],
    ['dataKeys.current.id', { dataKeys: { current: { id: 'k 1', key: new Uint8Array(32) } } }],
    ['logger', { logger: { warn() {} } }],
    ['onEvent', { onEvent: 'yes' }],
  ])('names %s', (option, override) => {
    const error = configError({ ...valid(), ...override });
    expect(error.option).toBe(option);
    expect(error.message).toMatch(new RegExp(`^createTenantAuth: ${option.replace('.', '\\.')} `));
  });

  // The list of stores is STORE_NAMES (ports/store-names.ts), tied to TenantAuthStores by the compiler:
  // each required store missing from a bundle is named; an optional one may be left out (complete-stores.ts).
  it.each(STORE_NAMES.filter((name) => !isOptionalStore(name)))(
    'names stores.%s when the bundle lacks it',
    (name) => {
      const stores = { ...createMemoryStores(), [name]: undefined };
      const error = configError({ ...valid(), stores });
      expect(error.option).toBe(`stores.${name}`);
      expect(error.message).toBe(`createTenantAuth: stores.${name} is required`);
    },
  );

  it('never says what a secret was', () => {
    const error = configError({ ...valid(), refreshSecret: 'hunter2-short' });
    expect(error.message).not.toContain('hunter2');
  });

  it('says once which rate-limit store it uses, and warns when rate limiting is off', () => {
    const lines: string[] = [];
    const logger = {
      error: () => {},
      warn: (_: object, m: string) => lines.push(`warn ${m}`),
      info: (_: object, m: string) => lines.push(`info ${m}`),
    };
    createTenantAuth({ ...valid(), rateLimit: undefined, logger });
    createTenantAuth({ ...valid(), rateLimit: false, logger });
    expect(lines).toEqual([
      expect.stringMatching(/^info tenant-auth: rate limits on an in-memory store \(this process only/),
      'warn tenant-auth: rate limiting is off (rateLimit: false)',
    ]);
  });
});
