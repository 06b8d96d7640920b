import { createHmac } from 'node:crypto';
import bcrypt from 'bcrypt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isValidSlug } from '../mechanisms/inputs/slug.js';
import { hashRefreshToken } from '../mechanisms/tokens/token-service.js';
import { MemoryRateLimitStore } from '../memory/memory-rate-limit-store.js';
import { createMemoryStores } from '../memory/memory-stores.js';
import type { Logger } from '../ports/logger.js';
import type { RateLimitHit, RateLimitStore } from '../ports/rate-limit-store.js';
import type { SessionStore, TenantAuthStores } from '../ports/tenant-auth-stores.js';
import { ManualClock } from '../testing/manual-clock.js';
import type { LoginInput } from '../use-cases/accounts/login.js';
import type { RegisterInput } from '../use-cases/accounts/registration.js';
import type { AuthEvent } from '../vocabulary/auth-event.js';
import type { TokenResponse } from '../vocabulary/claims.js';
import { isTenantAuthError, TenantAuthError, type TenantAuthErrorCode } from '../vocabulary/errors.js';
import type { SessionRecord, UserRecord } from '../vocabulary/records.js';
import { createTenantAuth } from './create-tenant-auth.js';
import type { TenantAuthOptions } from './options.js';

const PASSWORD = 'Tr1cky-Harbour-Lantern';
const DAY = 86_400_000;

const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {} };

function setup(overrides: Partial<TenantAuthOptions> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const stores = createMemoryStores();
  const events: AuthEvent[] = [];
  const auth = createTenantAuth({
    stores,
    accessToken: { secret: 'unit-access-secret-0123456789abcdef' },
    refreshSecret: 'unit-refresh-secret-0123456789abcdef',
    passwordHashing: { cost: 4 },
    rateLimit: false,
    logger: quiet,
    clock,
    onEvent: (e) => events.push(e),
    ...overrides,
  });
  return { auth, clock, stores, sessionStore: stores.sessions, events };
}

async function failure(promise: Promise<unknown>): Promise<TenantAuthError> {
  try {
    await promise;
  } catch (err) {
    if (isTenantAuthError(err)) return err;
    throw err;
  }
  throw new Error('expected a TenantAuthError');
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
  vi.useRealTimers();
});

describe('registration', () => {
  it('creates a tenant and its owner and answers with the token response plus the tenant', async () => {
    const { auth } = setup();
    const r = await auth.register({
      email: '  Ada@Example.COM ',
      password: PASSWORD,
      tenantName: 'Analytical Engines',
    });
    expect(r.user).toEqual({
      id: expect.any(String),
      email: 'ada@example.com',
      tenantId: r.tenant.id,
      role: 'owner',
      emailVerified: false,
    });
    expect(r.tenant).toMatchObject({ slug: 'analytical-engines', name: 'Analytical Engines' });
    expect(r).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, refreshExpiresIn: 604_800 });
    const claims = await auth.verifyAccessToken(r.accessToken);
    expect(claims).toMatchObject({ userId: r.user.id, tenantId: r.tenant.id, sessionId: r.session.id });
  });

  it('derives the slug from the email local part when no tenant name is given', async () => {
    const { auth } = setup();
    const r = await auth.register({ email: 'grace.hopper@example.com', password: PASSWORD });
    expect(r.tenant.slug).toBe('grace-hopper');
    expect(r.tenant.name).toBe('grace.hopper');
  });

  it('adds a random suffix when the slug is taken', async () => {
    const { auth } = setup();
    const a = await auth.register({ email: 'a@example.com', password: PASSWORD, tenantName: 'Acme' });
    const b = await auth.register({ email: 'b@example.com', password: PASSWORD, tenantName: 'Acme' });
    expect(a.tenant.slug).toBe('acme');
    expect(b.tenant.slug).toMatch(/^acme-[a-z0-9]{6}$/);
    expect(isValidSlug(b.tenant.slug)).toBe(true);
  });

  it('ignores fields outside the schema, such as a tenantId or a role', async () => {
    const { auth, stores } = setup();
    const victim = await auth.register({ email: 'victim@example.com', password: PASSWORD });
    const r = await auth.register({
      email: 'mallory@example.com',
      password: PASSWORD,
      tenantId: victim.tenant.id,
      role: 'member',
      emailVerified: true,
    } as RegisterInput);
    expect(r.tenant.id).not.toBe(victim.tenant.id);
    const user = await stores.users.findByEmail('mallory@example.com');
    expect(user?.tenantId).toBe(r.tenant.id);
    // Registration makes the owner of a new tenant, unverified, whatever the body says.
    expect(user).toMatchObject({ role: 'owner', emailVerified: false });
  });

  it('reports every failure at once with field codes', async () => {
    const { auth } = setup();
    const err = await failure(auth.register({ email: 'not-an-email', password: 'short' }));
    expect(err.code).toBe('validation_failed');
    expect(err.status).toBe(400);
    expect(err.errors?.map((e) => `${e.field}:${e.code}`)).toEqual(
      expect.arrayContaining([
        'email:invalid_email',
        'password:too_short',
        'password:missing_character_classes',
      ]),
    );
    const missing = await failure(auth.register({} as RegisterInput));
    expect(missing.errors?.map((e) => `${e.field}:${e.code}`)).toEqual([
      'email:required',
      'password:required',
    ]);
    expect((await failure(auth.register('nope' as unknown as RegisterInput))).code).toBe('validation_failed');
    const badName = await failure(
      auth.register({ email: 'n@example.com', password: PASSWORD, tenantName: 'x'.repeat(101) }),
    );
    expect(badName.errors).toEqual([expect.objectContaining({ field: 'tenantName', code: 'too_long' })]);
  });

  it('refuses a password containing personal information', async () => {
    const { auth } = setup();
    const err = await failure(
      auth.register({ email: 'lovelace@example.com', password: 'Lovelace-Rocks-2026!' }),
    );
    expect(err.errors).toEqual([
      expect.objectContaining({ field: 'password', code: 'contains_personal_info' }),
    ]);
    const byTenant = await failure(
      auth.register({ email: 'x@example.com', password: 'Zephyrine!Quartz9', tenantName: 'Zephyrine' }),
    );
    expect(byTenant.errors?.[0]?.code).toBe('contains_personal_info');
  });

  it('answers email_taken case-insensitively', async () => {
    const { auth } = setup();
    await auth.register({ email: 'ada@example.com', password: PASSWORD });
    const err = await failure(auth.register({ email: 'ADA@example.com', password: PASSWORD }));
    expect(err.code).toBe('validation_failed');
    expect(err.errors).toEqual([expect.objectContaining({ field: 'email', code: 'email_taken' })]);
  });

  it('lets exactly one of many concurrent registrations of one email succeed', async () => {
    const { auth } = setup();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => auth.register({ email: 'race@example.com', password: PASSWORD })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const taken = results.filter(
      (r) =>
        r.status === 'rejected' &&
        isTenantAuthError(r.reason, 'validation_failed') &&
        r.reason.errors?.[0]?.code === 'email_taken',
    );
    expect(ok).toHaveLength(1);
    expect(taken).toHaveLength(19);
  });

  it('leaves no tenant behind when the owner or the session cannot be created', async () => {
    for (const failingPart of ['users', 'sessions'] as const) {
      const inner = createMemoryStores();
      const tenantIds: string[] = [];
      const failing: TenantAuthStores = {
        ...inner,
        transaction: (fn) =>
          inner.transaction((tx) =>
            fn({
              ...tx,
              tenants: {
                ...tx.tenants,
                create: (tenant) => {
                  tenantIds.push(tenant.id);
                  return tx.tenants.create(tenant);
                },
              },
              [failingPart]: {
                ...tx[failingPart],
                create: async () => {
                  throw new TenantAuthError('unavailable', 'database down');
                },
              },
            }),
          ),
      };
      const { auth } = setup({ stores: failing });
      expect(await code(auth.register({ email: 'ada@example.com', password: PASSWORD }))).toBe('unavailable');
      expect(tenantIds).toHaveLength(1);
      expect(await inner.tenants.findById(tenantIds[0]!)).toBeNull();
      expect(await inner.users.findByEmail('ada@example.com')).toBeNull();
    }
  });
});

describe('login', () => {
  it('creates a session with device info, IP and user agent', async () => {
    const { auth } = setup();
    await auth.register({ email: 'ada@example.com', password: PASSWORD });
    const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
    const r = await auth.login(
      { email: 'ADA@example.com', password: PASSWORD },
      { ipAddress: '203.0.113.9', userAgent: ua },
    );
    const listed = await auth.listSessions(await auth.verifyAccessToken(r.accessToken));
    const mine = listed.find((s) => s.current);
    expect(mine).toMatchObject({
      id: r.session.id,
      deviceInfo: 'Firefox on Linux',
      ipAddress: '203.0.113.9',
      userAgent: ua,
    });
    const named = await auth.login({
      email: 'ada@example.com',
      password: PASSWORD,
      deviceInfo: 'Work laptop',
    });
    const again = await auth.listSessions(await auth.verifyAccessToken(named.accessToken));
    expect(again.find((s) => s.current)?.deviceInfo).toBe('Work laptop');
  });

  it('gives the same error for an unknown email and a wrong password, after the same bcrypt work', async () => {
    const compare = vi.spyOn(bcrypt, 'compare');
    const { auth, events } = setup();
    await auth.register({ email: 'ada@example.com', password: PASSWORD });
    const unknown = await failure(auth.login({ email: 'nobody@example.com', password: PASSWORD }));
    const wrong = await failure(auth.login({ email: 'ada@example.com', password: `${PASSWORD}x` }));
    expect(unknown.code).toBe('invalid_credentials');
    expect(wrong.code).toBe('invalid_credentials');
    expect(unknown.message).toBe(wrong.message);
    expect(unknown.status).toBe(401);
    const hashes = compare.mock.calls.map((call) => call[1]);
    expect(hashes).toHaveLength(2);
    expect(hashes[0]).toMatch(/^\$2b\$04\$/);
    expect(hashes[1]).toMatch(/^\$2b\$04\$/);
    compare.mockRestore();
    await auth.whenIdle();
    expect(events.filter((e) => e.type === 'login_failed').map((e) => e.reason)).toEqual([
      'unknown_email',
      'wrong_password',
    ]);
  });

  it('answers validation_failed for a malformed body', async () => {
    const { auth } = setup();
    expect(await code(auth.login({ email: 'ada@example.com' } as LoginInput))).toBe('validation_failed');
    expect(await code(auth.login({ email: 1, password: 2 } as unknown as LoginInput))).toBe(
      'validation_failed',
    );
    expect(await code(auth.login(null as unknown as LoginInput))).toBe('validation_failed');
  });

  it('throttles failed logins of an account from one client until the window slides; a success costs nothing', async () => {
    const limited = setup({ rateLimit: { account: 3, windowSeconds: 60 } });
    const from = { ipAddress: '198.51.100.7' };
    await limited.auth.register({ email: 'ada@example.com', password: PASSWORD });
    // The owner's own logins give their attempt back: any number of them, never locked.
    for (let i = 0; i < 5; i++) {
      expect(await code(limited.auth.login({ email: 'ada@example.com', password: PASSWORD }, from))).toBe(
        'ok',
      );
    }
    for (let i = 0; i < 3; i++) {
      expect(await code(limited.auth.login({ email: 'ada@example.com', password: 'wrong' }, from))).toBe(
        'invalid_credentials',
      );
    }
    const locked = await failure(limited.auth.login({ email: 'ADA@example.com', password: PASSWORD }, from));
    expect(locked.code).toBe('rate_limited');
    expect(locked.retryAfterSeconds).toBeGreaterThan(0);
    expect(locked.rateLimit).toMatchObject({ budget: 'account', limit: 3, remaining: 0 });
    // Unknown emails are throttled alike, so the answer reveals nothing.
    for (let i = 0; i < 3; i++)
      await code(limited.auth.login({ email: 'ghost@example.com', password: 'wrong' }, from));
    expect(await code(limited.auth.login({ email: 'ghost@example.com', password: 'wrong' }, from))).toBe(
      'rate_limited',
    );
    limited.clock.advance(61_000);
    expect(await code(limited.auth.login({ email: 'ada@example.com', password: PASSWORD }, from))).toBe('ok');
    // Parallel guesses are counted before the password check: at most the budget reaches it.
    const parallel = setup({ rateLimit: { account: 10, windowSeconds: 60 } });
    await parallel.auth.register({ email: 'ada@example.com', password: PASSWORD });
    const guesses = await Promise.all(
      Array.from({ length: 100 }, () =>
        code(parallel.auth.login({ email: 'ada@example.com', password: 'wrong' }, from)),
      ),
    );
    expect(guesses.filter((c) => c === 'invalid_credentials')).toHaveLength(10);
    expect(guesses.filter((c) => c === 'rate_limited')).toHaveLength(90);
    // With rate limiting off, attempts are never counted.
    const { auth } = setup();
    await auth.register({ email: 'ada@example.com', password: PASSWORD });
    for (let i = 0; i < 5; i++) await code(auth.login({ email: 'ada@example.com', password: 'wrong' }));
    expect(await code(auth.login({ email: 'ada@example.com', password: PASSWORD }))).toBe('ok');
  });
});

describe('sessions', () => {
  async function registered(overrides: Partial<TenantAuthOptions> = {}) {
    const ctx = setup(overrides);
    const first = await ctx.auth.register({ email: 'ada@example.com', password: PASSWORD });
    return { ...ctx, first };
  }

  it('slide their expiry on refresh but never past the absolute expiry', async () => {
    const { auth, clock, first } = await registered({ sessionAbsoluteTtlSeconds: 10 * 86_400 });
    expect(first.session.expiresAt.getTime() - clock.now().getTime()).toBe(7 * DAY);
    clock.advance(5 * DAY);
    const second = await auth.refresh(first.refreshToken);
    expect(second.session.expiresAt.getTime() - Date.UTC(2026, 0, 1)).toBe(10 * DAY);
    expect(second.refreshExpiresIn).toBe(5 * 86_400);
    clock.advance(5 * DAY);
    expect(await code(auth.refresh(second.refreshToken))).toBe('invalid_token');
  });

  /** Counts the session store's calls a refresh makes. */
  function countCalls(store: SessionStore): Record<string, number> {
    const calls: Record<string, number> = {};
    const methods = store as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ['findById', 'findByRefreshHash', 'rotate', 'rotateCurrent']) {
      const method = methods[name];
      if (typeof method !== 'function') continue;
      methods[name] = (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return method.apply(store, args);
      };
    }
    return calls;
  }

  it('rotate the current token in one store call when the store has rotateCurrent, in two without it', async () => {
    const { auth, clock, first, sessionStore, events } = await registered();
    const calls = countCalls(sessionStore);
    clock.advance(60_000);
    const second = await auth.refresh(first.refreshToken, { ipAddress: '192.0.2.7' });
    expect(calls).toEqual({ rotateCurrent: 1 });
    expect(second.session.expiresAt.getTime() - clock.now().getTime()).toBe(7 * DAY);
    expect(second.refreshExpiresIn).toBe(604_800);
    expect(events.filter((e) => e.type === 'refreshed')).toEqual([
      expect.objectContaining({
        sessionId: first.session.id,
        actorId: first.user.id,
        subjectId: first.user.id,
        ipAddress: '192.0.2.7',
      }),
    ]);
    const stored = await sessionStore.findById(first.user.tenantId, first.session.id);
    expect(stored).toMatchObject({
      refreshHash: hashRefreshToken(second.refreshToken),
      previousRefreshHash: hashRefreshToken(first.refreshToken),
    });
    // Without rotateCurrent: the session is read, then rotated.
    const plain = setup();
    delete plain.stores.sessions.rotateCurrent;
    const r = await plain.auth.register({ email: 'plain@example.com', password: PASSWORD });
    const plainCalls = countCalls(plain.sessionStore);
    plain.clock.advance(60_000);
    const next = await plain.auth.refresh(r.refreshToken);
    expect(plainCalls).toEqual({ findByRefreshHash: 1, rotate: 1 });
    expect(next.refreshExpiresIn).toBe(604_800);
  });

  it('take two steps near the absolute expiry: the first cut-short token is found by a one-step miss, then read', async () => {
    const { auth, clock, first, sessionStore } = await registered({ sessionAbsoluteTtlSeconds: 10 * 86_400 });
    const calls = countCalls(sessionStore);
    clock.advance(5 * DAY);
    // The sliding expiry would pass the absolute one: the store refuses the one step, the read caps it.
    const second = await auth.refresh(first.refreshToken);
    expect(calls).toEqual({ rotateCurrent: 1, findByRefreshHash: 1, rotate: 1 });
    expect(second.session.expiresAt.getTime() - Date.UTC(2026, 0, 1)).toBe(10 * DAY);
    // The token it got is cut short: the next refresh reads the session without trying the one step.
    clock.advance(DAY);
    const third = await auth.refresh(second.refreshToken);
    expect(calls).toEqual({ rotateCurrent: 1, findByRefreshHash: 2, rotate: 2 });
    expect(third.session.expiresAt.getTime() - Date.UTC(2026, 0, 1)).toBe(10 * DAY);
  });

  it("refuse a one-step refresh when the store returns a session or user other than the token's, or a session it should not have rotated", async () => {
    const { auth, stores, first } = await registered();
    const eve = await auth.register({ email: 'eve@example.com', password: PASSWORD });
    const eveUser = (await stores.users.findById(eve.user.tenantId, eve.user.id))!;
    const eveSession = (await stores.sessions.findById(eve.user.tenantId, eve.session.id))!;
    const rotateCurrent = stores.sessions.rotateCurrent!;
    const wrongs = [
      (found: { session: SessionRecord; user: UserRecord }) => ({ ...found, user: eveUser }),
      (found: { session: SessionRecord; user: UserRecord }) => ({
        ...found,
        user: { ...eveUser, tenantId: first.user.tenantId },
      }),
      (found: { session: SessionRecord; user: UserRecord }) => ({ ...found, session: eveSession }),
      (found: { session: SessionRecord; user: UserRecord }) => ({
        ...found,
        session: { ...found.session, absoluteExpiresAt: found.session.createdAt },
      }),
      (found: { session: SessionRecord; user: UserRecord }) => ({
        ...found,
        session: { ...found.session, revokedAt: found.session.createdAt },
      }),
    ];
    let token = first.refreshToken;
    for (const wrong of wrongs) {
      stores.sessions.rotateCurrent = async (...args) => {
        const found = await rotateCurrent(...args);
        return found && wrong(found);
      };
      expect(await code(auth.refresh(token))).toBe('invalid_token');
      // What the store rotated to went to nobody; the token it replaced gets it again within the grace period.
      stores.sessions.rotateCurrent = rotateCurrent;
      const again = await auth.refresh(token);
      expect(again.user).toEqual(first.user);
      token = again.refreshToken;
    }
  });

  it('report whole lifetimes when the clock is not on a whole second', async () => {
    const { auth, clock } = setup();
    clock.advance(1_234);
    const r = await auth.register({ email: 'ms@example.com', password: PASSWORD });
    expect(r.refreshExpiresIn).toBe(604_800);
    clock.advance(60_500);
    expect((await auth.refresh(r.refreshToken)).refreshExpiresIn).toBe(604_800);
  });

  it('report a whole lifetime even when a second passes while the token is signed', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    // Every read of the clock moves it on by half a second: signing crosses into the next second.
    const ticking = {
      now: () => {
        clock.advance(500);
        return clock.now();
      },
    };
    const { auth, events } = setup({ clock: ticking });
    const r = await auth.register({ email: 'tick@example.com', password: PASSWORD });
    expect(r.refreshExpiresIn).toBe(604_800);
    expect(events.find((e) => e.type === 'registered')).toMatchObject({ sessionId: r.session.id });
  });

  it('expire after 7 days without a refresh', async () => {
    const { auth, clock, first } = await registered();
    clock.advance(7 * DAY + 1000);
    expect(await code(auth.refresh(first.refreshToken))).toBe('invalid_token');
  });

  it("refuse a refresh when the store reads a user other than the session's own with it", async () => {
    const stores = createMemoryStores();
    // The two-step path: a store without rotateCurrent (the one-step path has a test of its own).
    delete stores.sessions.rotateCurrent;
    const { auth } = setup({ stores });
    const ada = await auth.register({ email: 'ada@example.com', password: PASSWORD });
    const eve = await auth.register({ email: 'eve@example.com', password: PASSWORD });
    const eveUser = await stores.users.findById(eve.user.tenantId, eve.user.id);
    // A store that joins on the user id alone and returns a user of another tenant, or another user.
    const wrongUsers = [eveUser, { ...eveUser!, tenantId: ada.user.tenantId }];
    for (const wrong of wrongUsers) {
      const findByRefreshHash = stores.sessions.findByRefreshHash;
      stores.sessions.findByRefreshHash = async (tenantId, hash) => {
        const found = await findByRefreshHash(tenantId, hash);
        return found && { ...found, user: wrong };
      };
      expect(await code(auth.refresh(ada.refreshToken))).toBe('invalid_token');
      stores.sessions.findByRefreshHash = findByRefreshHash;
    }
    // With the store's own answer the same token still refreshes: nothing was rotated or revoked.
    expect((await auth.refresh(ada.refreshToken)).user).toEqual(ada.user);
  });

  it('refuse an access token as a refresh token and garbage', async () => {
    const { auth, first } = await registered();
    expect(await code(auth.refresh(first.accessToken))).toBe('invalid_token');
    expect(await code(auth.refresh('garbage'))).toBe('invalid_token');
    expect(await code(auth.verifyAccessToken(first.refreshToken))).toBe('invalid_token');
  });

  it('never store the raw refresh token', async () => {
    const { first, sessionStore } = await registered();
    const stored = JSON.stringify(await sessionStore.findById(first.user.tenantId, first.session.id));
    expect(stored).not.toContain(first.refreshToken);
    expect(stored).not.toContain(first.refreshToken.split('.')[2]);
  });

  it('log out with an access or a refresh token', async () => {
    const { auth, first, events } = await registered();
    await auth.logout(first.refreshToken);
    expect(await code(auth.refresh(first.refreshToken))).toBe('invalid_token');
    const second = await auth.login({ email: 'ada@example.com', password: PASSWORD });
    await auth.logout(second.accessToken, { ipAddress: '198.51.100.4' });
    expect(await code(auth.refresh(second.refreshToken))).toBe('invalid_token');
    expect(events.filter((e) => e.type === 'logout').at(-1)).toMatchObject({
      ipAddress: '198.51.100.4',
      sessionId: second.session.id,
    });
    expect(await code(auth.logout('garbage'))).toBe('invalid_token');
    expect(events.filter((e) => e.type === 'logout')).toHaveLength(2);
  });

  it('keep access tokens valid after logout unless per-request checking is on', async () => {
    const plain = await registered();
    await plain.auth.logout(plain.first.accessToken);
    expect(await code(plain.auth.verifyAccessToken(plain.first.accessToken))).toBe('ok');
    const checked = await registered({ checkSessionOnVerify: { cacheTtlSeconds: 5, cacheSize: 100 } });
    expect(await code(checked.auth.verifyAccessToken(checked.first.accessToken))).toBe('ok');
    await checked.auth.logout(checked.first.accessToken);
    expect(await code(checked.auth.verifyAccessToken(checked.first.accessToken))).toBe('invalid_token');
  });

  it('per-request checking caches for a bounded time', async () => {
    const { auth, clock, first, sessionStore } = await registered({
      checkSessionOnVerify: { cacheTtlSeconds: 5, cacheSize: 100 },
    });
    await auth.verifyAccessToken(first.accessToken);
    // Revoked behind this instance's back (another server): seen once the cache entry expires.
    await sessionStore.revoke(first.user.tenantId, first.session.id, clock.now());
    expect(await code(auth.verifyAccessToken(first.accessToken))).toBe('ok');
    clock.advance(5001);
    expect(await code(auth.verifyAccessToken(first.accessToken))).toBe('invalid_token');
  });

  it('list the active sessions, revoke one (only the caller’s), revoke all but the current', async () => {
    const { auth, first } = await registered();
    const logins: TokenResponse[] = [];
    for (let i = 0; i < 3; i++)
      logins.push(await auth.login({ email: 'ada@example.com', password: PASSWORD }));
    const claims = await auth.verifyAccessToken(first.accessToken);
    expect(await auth.listSessions(claims)).toHaveLength(4);
    await auth.revokeSession(claims, logins[0]!.session.id);
    expect(await code(auth.revokeSession(claims, 'not-a-uuid'))).toBe('not_found');
    expect(await code(auth.revokeSession(claims, '0190d4a0-0000-7000-8000-000000000000'))).toBe('not_found');
    expect((await auth.listSessions(claims)).map((s) => s.id)).not.toContain(logins[0]!.session.id);
    expect(await auth.revokeAllSessions(claims, { exceptCurrent: true })).toBe(2);
    const left = await auth.listSessions(claims);
    expect(left).toEqual([expect.objectContaining({ id: first.session.id, current: true })]);
    expect(await auth.revokeAllSessions(claims)).toBe(1);
    expect(await auth.listSessions(claims)).toEqual([]);
  });

  it('are cleaned up in batches: expired ones, and revoked ones past retention', async () => {
    const { auth, clock, first, sessionStore } = await registered({
      cleanupBatchSize: 2,
      revokedSessionRetentionSeconds: 86_400,
    });
    const more: TokenResponse[] = [];
    for (let i = 0; i < 4; i++) more.push(await auth.login({ email: 'ada@example.com', password: PASSWORD }));
    await auth.logout(more[0]!.accessToken);
    clock.advance(2 * DAY);
    const fresh = await auth.login({ email: 'ada@example.com', password: PASSWORD });
    expect(await auth.cleanup()).toEqual({
      sessions: 1,
      oneTimeTokens: 0,
      auditEvents: 0,
      outboxMessages: 0,
      apiKeys: 0,
      webhookDeliveries: 0,
    });
    clock.advance(6 * DAY);
    expect(await auth.cleanup()).toMatchObject({ sessions: 4 });
    expect(await sessionStore.findById(first.user.tenantId, fresh.session.id)).not.toBeNull();
    expect(await sessionStore.findById(first.user.tenantId, first.session.id)).toBeNull();
  });

  it('run cleanup on an unref’d timer that stops', async () => {
    const { auth, clock, first, sessionStore } = await registered();
    const find = (id: string) => sessionStore.findById(first.user.tenantId, id);
    const realSetInterval = globalThis.setInterval;
    let handle: NodeJS.Timeout | undefined;
    vi.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms: number) => {
      handle = realSetInterval(fn, ms);
      return handle;
    }) as typeof setInterval);
    const probe = auth.startCleanup({ intervalSeconds: 60 });
    expect(handle?.hasRef()).toBe(false);
    probe.stop();
    vi.restoreAllMocks();

    vi.useFakeTimers();
    const timer = auth.startCleanup({ intervalSeconds: 60 });
    clock.advance(8 * DAY);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await find(first.session.id)).toBeNull();
    timer.stop();
    const later = await auth.login({ email: 'ada@example.com', password: PASSWORD });
    clock.advance(8 * DAY);
    await vi.advanceTimersByTimeAsync(180_000);
    expect(await find(later.session.id)).not.toBeNull();
    expect(() => auth.startCleanup({ intervalSeconds: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid_configuration', option: 'intervalSeconds' }),
    );
  });
});

describe('tenants', () => {
  it('are readable only by their own users; any other id is not_found', async () => {
    const { auth } = setup();
    const a = await auth.register({ email: 'a@example.com', password: PASSWORD, tenantName: 'Alpha' });
    const b = await auth.register({ email: 'b@example.com', password: PASSWORD, tenantName: 'Bravo' });
    const claimsA = await auth.verifyAccessToken(a.accessToken);
    expect(await auth.getTenant(claimsA, a.tenant.id)).toEqual(a.tenant);
    expect(await auth.getMyTenant(claimsA)).toEqual(a.tenant);
    expect(await code(auth.getTenant(claimsA, b.tenant.id))).toBe('not_found');
    expect(await code(auth.getTenant(claimsA, 'nope'))).toBe('not_found');
  });
});

describe('the per-account throttle options', () => {
  /** A store that records the keys it is given and can be switched off. */
  class SpyStore implements RateLimitStore {
    readonly keys: string[] = [];
    down = false;
    readonly inner = new MemoryRateLimitStore();
    async hit(key: string, options: { windowMs: number; now: number; cost?: number }): Promise<RateLimitHit> {
      this.keys.push(key);
      if (this.down) throw new Error('connect ECONNREFUSED');
      return this.inner.hit(key, options);
    }
  }

  it('keys the counters by HMAC of the email with accountKeySecret, and warns through the given logger', async () => {
    const store = new SpyStore();
    const warnings: string[] = [];
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { auth } = setup({
      rateLimit: { store, accountKeySecret: 'account-key-secret' },
      logger: { ...quiet, warn: (_obj, msg) => warnings.push(msg) },
    });
    await code(
      auth.login({ email: 'Ada@Example.com', password: 'wrong-password-1' }, { ipAddress: '192.0.2.1' }),
    );
    const hmac = createHmac('sha256', 'account-key-secret')
      .update('ada@example.com')
      .digest('hex')
      .slice(0, 32);
    expect(store.keys).toEqual([`account.0:${hmac}|ip:192.0.2.1`, `account:${hmac}`]);
    store.down = true;
    expect(await code(auth.login({ email: 'ada@example.com', password: 'wrong-password-1' }))).toBe(
      'unavailable',
    );
    expect(warnings).toEqual(['rate-limit store failed; refusing requests until it recovers']);
    expect(consoleWarn).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    consoleWarn.mockRestore();
    consoleError.mockRestore();
    await store.inner.close();
  });
});
