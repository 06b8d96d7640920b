import { describe, expect, it } from 'vitest';
import {
  createMemoryStores,
  createTenantAuth,
  isTenantAuthError,
  type TenantAuthStores,
} from '../../index.js';
import { hashRefreshToken } from '../../mechanisms/tokens/token-service.js';
import { ManualClock } from '../../testing/index.js';

// The grace and replay rules of a refresh, end to end through createTenantAuth (they moved here from the
// store conformance suite, which calls the stores alone). They run on the memory stores with the optional
// rotateCurrent (a refresh in one store call) and without it (a read, then rotate).

const PASSWORD = 'Tr1cky-Harbour-Lantern';
const T0 = Date.UTC(2026, 0, 1);

const variants: [string, () => TenantAuthStores][] = [
  ['memory stores', () => createMemoryStores()],
  [
    'memory stores without rotateCurrent',
    () => {
      const stores = createMemoryStores();
      delete stores.sessions.rotateCurrent;
      return stores;
    },
  ],
];

/** The error code a promise rejects with, or `resolved`. */
async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return isTenantAuthError(err) ? err.code : 'other';
  }
}

describe.each(variants)('refresh rotation on the %s', (_name, createStores) => {
  function service(grace = 10) {
    const stores = createStores();
    const clock = new ManualClock(T0);
    const auth = createTenantAuth({
      stores,
      accessToken: { secret: 'conformance-access-secret-0123456789' },
      refreshSecret: 'conformance-refresh-secret-0123456789',
      refreshReuseGraceSeconds: grace,
      passwordHashing: { cost: 4 },
      rateLimit: false,
      logger: { error() {}, warn() {}, info() {} },
      clock,
    });
    return { auth, clock, sessions: stores.sessions };
  }

  it('gives every racing refresh within the grace period the identical new token, rotating once', async () => {
    const { auth, clock, sessions } = service();
    const first = await auth.register({ email: 'race@example.com', password: PASSWORD });
    clock.advance(60_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => auth.refresh(first.refreshToken)));
    const children = new Set(results.map((r) => r.refreshToken));
    expect(children.size).toBe(1);
    const [child] = children;
    expect(child).not.toBe(first.refreshToken);
    const stored = await sessions.findById(first.user.tenantId, first.session.id);
    expect(stored?.refreshHash).toBe(hashRefreshToken(child!));
    expect(stored?.previousRefreshHash).toBe(hashRefreshToken(first.refreshToken));
    clock.advance(9_000);
    expect((await auth.refresh(first.refreshToken)).refreshToken).toBe(child);
    expect((await auth.refresh(child!)).refreshToken).not.toBe(child);
  });

  it('treats the previous token after the grace period as a replay and revokes the session', async () => {
    const { auth, clock, sessions } = service();
    const first = await auth.register({ email: 'replay@example.com', password: PASSWORD });
    const second = await auth.refresh(first.refreshToken);
    clock.advance(10_001);
    expect(await errorCode(auth.refresh(first.refreshToken))).toBe('invalid_token');
    expect((await sessions.findById(first.user.tenantId, first.session.id))?.revokedAt).not.toBeNull();
    expect(await errorCode(auth.refresh(second.refreshToken))).toBe('invalid_token');
  });

  it('treats any older ancestor as a replay, even within the grace period of a later rotation', async () => {
    const { auth, clock } = service();
    const g0 = await auth.register({ email: 'ancestor@example.com', password: PASSWORD });
    clock.advance(20_000);
    const g1 = await auth.refresh(g0.refreshToken);
    clock.advance(20_000);
    const g2 = await auth.refresh(g1.refreshToken);
    clock.advance(1_000);
    expect(await errorCode(auth.refresh(g0.refreshToken))).toBe('invalid_token');
    expect(await errorCode(auth.refresh(g2.refreshToken))).toBe('invalid_token');
    expect(await auth.listSessions(await auth.verifyAccessToken(g2.accessToken))).toEqual([]);
  });

  it('with a grace period of 0, any reuse of the previous token is a replay', async () => {
    const { auth } = service(0);
    const first = await auth.register({ email: 'nograce@example.com', password: PASSWORD });
    const second = await auth.refresh(first.refreshToken);
    expect(await errorCode(auth.refresh(first.refreshToken))).toBe('invalid_token');
    expect(await errorCode(auth.refresh(second.refreshToken))).toBe('invalid_token');
  });

  it('stops refreshes after logout and after revoking the session', async () => {
    const { auth } = service();
    const a = await auth.register({ email: 'logout@example.com', password: PASSWORD });
    await auth.logout(a.accessToken);
    expect(await errorCode(auth.refresh(a.refreshToken))).toBe('invalid_token');
    const b = await auth.login({ email: 'logout@example.com', password: PASSWORD });
    const c = await auth.login({ email: 'logout@example.com', password: PASSWORD });
    await auth.revokeSession(await auth.verifyAccessToken(c.accessToken), b.session.id);
    expect(await errorCode(auth.refresh(b.refreshToken))).toBe('invalid_token');
    expect(await errorCode(auth.refresh(c.refreshToken))).toBe('resolved');
  });

  it("cannot revoke or see another user's session, nor another tenant", async () => {
    const { auth } = service();
    const alice = await auth.register({
      email: 'alice@example.com',
      password: PASSWORD,
      tenantName: 'Alice Co',
    });
    const bob = await auth.register({
      email: 'bob@example.com',
      password: PASSWORD,
      tenantName: 'Bob Co',
    });
    const bobClaims = await auth.verifyAccessToken(bob.accessToken);
    expect(await errorCode(auth.revokeSession(bobClaims, alice.session.id))).toBe('not_found');
    expect(await errorCode(auth.refresh(alice.refreshToken))).toBe('resolved');
    expect((await auth.listSessions(bobClaims)).map((s) => s.id)).toEqual([bob.session.id]);
    expect(await errorCode(auth.getTenant(bobClaims, alice.tenant.id))).toBe('not_found');
    expect((await auth.getMyTenant(bobClaims)).id).toBe(bob.tenant.id);
  });
});
