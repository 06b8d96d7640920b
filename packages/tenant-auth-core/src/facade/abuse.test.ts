import bcrypt from 'bcrypt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimitStore } from '../memory/memory-rate-limit-store.js';
import { createMemoryStores } from '../memory/memory-stores.js';
import type { Logger } from '../ports/logger.js';
import { ManualClock } from '../testing/manual-clock.js';
import type { RegisterInput } from '../use-cases/accounts/registration.js';
import { isTenantAuthError, type TenantAuthErrorCode } from '../vocabulary/errors.js';
import { createTenantAuth } from './create-tenant-auth.js';
import type { TenantAuthOptions } from './options.js';

/*
 * What an attacker tries first, at the level of the library (the HTTP adapter adds nothing to these rules):
 * locking a victim out, exhausting the rate-limit store or the hashing pool from one allocation, Unicode
 * addresses that fold into an ASCII account, control characters, and timing tells of the dummy hash.
 */

const PASSWORD = 'Tr1cky-Harbour-Lantern';
const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {} };

function setup(overrides: Partial<TenantAuthOptions> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const stores = createMemoryStores();
  const auth = createTenantAuth({
    stores,
    accessToken: { secret: 'abuse-access-secret-0123456789abcdef' },
    refreshSecret: 'abuse-refresh-secret-0123456789abcdef',
    passwordHashing: { cost: 4 },
    logger: quiet,
    clock,
    ...overrides,
  });
  return { auth, clock, stores };
}

async function code(promise: Promise<unknown>): Promise<TenantAuthErrorCode | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (isTenantAuthError(err)) return err.code;
    throw err;
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('an attacker cannot lock a victim out', () => {
  it('wrong passwords from one address every 6 s for ten minutes never keep the owner, elsewhere, out', async () => {
    const { auth, clock } = setup();
    await auth.register({ email: 'victim@example.com', password: PASSWORD });
    const attacker = { ipAddress: '198.51.100.66' };
    const owner = { ipAddress: '203.0.113.10' };
    let ownerLogins = 0;
    for (let second = 0; second < 600; second += 6) {
      await code(auth.login({ email: 'victim@example.com', password: 'guess-123456' }, attacker));
      if (second % 60 === 0) {
        expect(await code(auth.login({ email: 'victim@example.com', password: PASSWORD }, owner))).toBe('ok');
        ownerLogins++;
      }
      clock.advance(6_000);
    }
    expect(ownerLogins).toBe(10);
  });

  it('stops the attacker from that address, and refused attempts do not extend the lock', async () => {
    const { auth, clock } = setup({ rateLimit: { account: 3 } });
    await auth.register({ email: 'victim@example.com', password: PASSWORD });
    const attacker = { ipAddress: '198.51.100.66' };
    const guess = () => auth.login({ email: 'victim@example.com', password: 'guess-123456' }, attacker);
    for (let i = 0; i < 3; i++) expect(await code(guess())).toBe('invalid_credentials');
    // Hammering while refused, for the rest of the window: nothing of it is counted...
    for (let i = 0; i < 59; i++) {
      clock.advance(1_000);
      expect(await code(guess())).toBe('rate_limited');
    }
    // ...so the address may try again exactly one window after its first attempt.
    clock.advance(1_000);
    expect(await code(guess())).toBe('invalid_credentials');
  });

  it('bounds a guess spread over many addresses with the per-account ceiling', async () => {
    const { auth } = setup({ rateLimit: { account: 3, accountCeiling: 20 } });
    await auth.register({ email: 'victim@example.com', password: PASSWORD });
    const outcomes: string[] = [];
    for (let i = 0; i < 50; i++) {
      outcomes.push(
        await code(
          auth.login({ email: 'victim@example.com', password: 'guess-1' }, { ipAddress: `192.0.2.${i}` }),
        ),
      );
    }
    expect(outcomes.filter((o) => o === 'invalid_credentials')).toHaveLength(20);
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(30);
  });
});

describe('one IPv6 allocation cannot shut login down for everyone', () => {
  it('fills the store from one /48, and an IPv4 client still logs in', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 50 });
    // The network budget is lifted here so the /48 can fill every level of the store.
    const { auth } = setup({ rateLimit: { store, network: 1_000_000, strict: 1_000_000 } });
    await auth.register({ email: 'ada@example.com', password: PASSWORD });
    for (let i = 0; i < 500; i++) {
      const ipAddress = `2001:db8:1:${i.toString(16)}::1`;
      expect(await code(auth.rateLimit('strict', { ipAddress }))).toBe('ok');
      await code(auth.login({ email: `user${i}@example.com`, password: 'guess-1' }, { ipAddress }));
    }
    expect(store.size).toBeGreaterThanOrEqual(50);
    const innocent = { ipAddress: '203.0.113.10' };
    expect(await auth.rateLimit('strict', innocent)).toMatchObject({ allowed: true, budget: 'strict' });
    expect(await code(auth.login({ email: 'ada@example.com', password: PASSWORD }, innocent))).toBe('ok');
    await store.close();
  });

  it('limits one /48 as a whole with the network budget on the strict routes', async () => {
    const { auth } = setup({ rateLimit: { network: 100 } });
    const outcomes: string[] = [];
    for (let i = 0; i < 150; i++) {
      outcomes.push(await code(auth.rateLimit('strict', { ipAddress: `2001:db8:1:${i.toString(16)}::1` })));
    }
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(100);
    const refused = await auth
      .rateLimit('strict', { ipAddress: '2001:db8:1:ffff::1' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'rate_limited',
      rateLimit: { budget: 'network', limit: 100, remaining: 0 },
    });
    expect(await code(auth.rateLimit('strict', { ipAddress: '2001:db8:2::1' }))).toBe('ok');
  });

  it('gives no network more than its share of the hashing pool, so another network still gets a slot', async () => {
    const { auth } = setup({
      rateLimit: false,
      passwordHashing: { cost: 10, maxConcurrent: 1, maxQueue: 20, maxPerClient: 2 },
    });
    await auth.register({ email: 'ada@example.com', password: PASSWORD }, { ipAddress: '203.0.113.10' });
    const flood = Array.from({ length: 30 }, (_, i) =>
      code(
        auth.login({ email: `x${i}@example.com`, password: 'guess-1' }, { ipAddress: `2001:db8:1:${i}::1` }),
      ),
    );
    const innocent = code(
      auth.login({ email: 'ada@example.com', password: PASSWORD }, { ipAddress: '203.0.113.10' }),
    );
    const outcomes = await Promise.all(flood);
    // The /48 held at most its two places (running or waiting); the rest were turned away at once.
    expect(outcomes.filter((o) => o === 'invalid_credentials')).toHaveLength(2);
    // Over its share, not a service down: 429 rate_limited (docs/http-api.md, "Errors added in 1.2").
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(28);
    expect(await innocent).toBe('ok');
  });
});

describe('Unicode addresses never reach an ASCII account', () => {
  const lookalikes = [
    ['the Kelvin sign', '\u212Aelvin@example.com'],
    ['a Turkish dotted capital I', '\u0130nge@example.com'],
    ['a Turkish dotless i', 'k\u0131lic@example.com'],
    ['German sharp s', 'stra\u00DFe@example.com'],
    ['fullwidth letters', '\uFF4Belvin@example.com'],
    ['a combining mark', 'ke\u0301lvin@example.com'],
  ] as const;
  const accountOf: Record<string, string> = {
    'the Kelvin sign': 'kelvin@example.com',
    'a Turkish dotted capital I': 'inge@example.com',
    'a Turkish dotless i': 'kilic@example.com',
    'German sharp s': 'strasse@example.com',
    'fullwidth letters': 'kelvin@example.com',
    'a combining mark': 'kelvin@example.com',
  };

  it.each(lookalikes)('logging in with %s does not log into the ASCII account', async (name, lookalike) => {
    const { auth } = setup();
    const ascii = accountOf[name] as string;
    await auth.register({ email: ascii, password: PASSWORD });
    expect(await code(auth.login({ email: lookalike, password: PASSWORD }))).toBe('invalid_credentials');
    expect(await code(auth.login({ email: ascii.toUpperCase(), password: PASSWORD }))).toBe('ok');
  });

  it.each(lookalikes)('registering an address with %s is refused', async (_name, lookalike) => {
    const { auth } = setup();
    const err = await auth.register({ email: lookalike, password: PASSWORD }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'email', code: 'invalid_email' })],
    });
  });
});

describe('control characters are refused before any hashing or query', () => {
  it('in a login email and a tenant name, with validation_failed', async () => {
    const { auth, stores } = setup();
    const compare = vi.spyOn(bcrypt, 'compare');
    const hash = vi.spyOn(bcrypt, 'hash');
    const lookups = vi.spyOn(stores.users, 'findByEmail');
    const login = await auth
      .login({ email: 'ada\u0000@example.com', password: PASSWORD })
      .catch((e: unknown) => e);
    expect(login).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'email' })],
    });
    const register = await auth
      .register({ email: 'ada@example.com', password: PASSWORD, tenantName: 'Acme\u0000Corp' })
      .catch((e: unknown) => e);
    expect(register).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'tenantName' })],
    });
    const nul = await auth
      .register({ email: 'a\u0000b@example.com', password: PASSWORD } as RegisterInput)
      .catch((e: unknown) => e);
    expect(nul).toMatchObject({ code: 'validation_failed' });
    expect(compare).not.toHaveBeenCalled();
    expect(lookups).not.toHaveBeenCalled();
    // (the only hash is the dummy one made at start-up)
    expect(hash.mock.calls.length).toBeLessThanOrEqual(1);
  });
});

describe('timing and cost', () => {
  it('makes the dummy hash at start-up, so the first unknown-email login pays for one compare only', async () => {
    const hash = vi.spyOn(bcrypt, 'hash');
    const compare = vi.spyOn(bcrypt, 'compare');
    const { auth } = setup({ rateLimit: false });
    await vi.waitFor(() => expect(hash).toHaveBeenCalledTimes(1));
    hash.mockClear();
    expect(await code(auth.login({ email: 'nobody@example.com', password: PASSWORD }))).toBe(
      'invalid_credentials',
    );
    expect(hash).not.toHaveBeenCalled();
    expect(compare).toHaveBeenCalledTimes(1);
  });

  it('re-hashes a password at login when its stored cost is below the configured one', async () => {
    const { auth, stores } = setup({ rateLimit: false });
    const { user } = await auth.register({ email: 'ada@example.com', password: PASSWORD });
    expect((await stores.users.findByEmail('ada@example.com'))?.passwordHash).toMatch(/^\$2b\$04\$/);
    const upgraded = createTenantAuth({
      stores,
      accessToken: { secret: 'abuse-access-secret-0123456789abcdef' },
      refreshSecret: 'abuse-refresh-secret-0123456789abcdef',
      passwordHashing: { cost: 5 },
      rateLimit: false,
      logger: quiet,
    });
    expect(await code(upgraded.login({ email: 'ada@example.com', password: 'wrong-password-1' }))).toBe(
      'invalid_credentials',
    );
    expect((await stores.users.findById(user.tenantId, user.id))?.passwordHash).toMatch(/^\$2b\$04\$/);
    expect(await code(upgraded.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
    expect((await stores.users.findById(user.tenantId, user.id))?.passwordHash).toMatch(/^\$2b\$05\$/);
    expect(await code(upgraded.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
  });
});

describe('session ids', () => {
  it('revokes a session named in upper case, and the per-request check sees it at once', async () => {
    const { auth } = setup({ checkSessionOnVerify: true, rateLimit: false });
    const first = await auth.register({ email: 'ada@example.com', password: PASSWORD });
    const second = await auth.login({ email: 'ada@example.com', password: PASSWORD });
    const claims = await auth.verifyAccessToken(first.accessToken);
    await auth.verifyAccessToken(second.accessToken); // cached as active
    await auth.revokeSession(claims, second.session.id.toUpperCase());
    expect(await code(auth.verifyAccessToken(second.accessToken))).toBe('invalid_token');
    expect(await code(auth.refresh(second.refreshToken))).toBe('invalid_token');
  });
});
