import { afterEach, describe, expect, it } from 'vitest';
import {
  createTenantAuthClient,
  memoryTokenStorage,
  type SessionChange,
  type TenantAuthClient,
  type TokenStorage,
} from '../src/index.js';
import { FakeApi, FakeChannelHub, FakeLocks, FakeTime, settle, USER } from './fakes.js';

const BASE = 'http://api.test/api/v1';
const CREDENTIALS = { email: USER.email, password: 'Correct-Horse-Battery-42' };

let clients: TenantAuthClient[] = [];
afterEach(() => {
  for (const c of clients) c.close();
  clients = [];
});

interface Tab {
  client: TenantAuthClient;
  changes: SessionChange[];
}

/** Tabs of one origin: one server, one clock, one storage (bearer) or cookie jar, and the given coordination. */
function origin(options: {
  mode?: 'bearer' | 'cookie';
  locks?: boolean;
  channel?: boolean;
  storage?: () => TokenStorage;
}) {
  const time = new FakeTime();
  const api = new FakeApi(time);
  const locks = new FakeLocks();
  const hub = new FakeChannelHub();
  const shared = memoryTokenStorage();
  const mode = options.mode ?? 'bearer';
  const tab = (): Tab => {
    const changes: SessionChange[] = [];
    const client = createTenantAuthClient({
      baseUrl: BASE,
      mode,
      ...(mode === 'bearer' ? { storage: options.storage ? options.storage() : shared } : {}),
      fetch: api.fetch,
      clock: time,
      timers: time,
      crossTab: {
        locks: options.locks === false ? null : locks,
        channel: options.channel === false ? null : hub.open(),
      },
      onSessionChange: (change) => changes.push(change),
    });
    clients.push(client);
    return { client, changes };
  };
  return { time, api, locks, hub, tab };
}

describe('tabs sharing a session (bearer mode, one storage)', () => {
  it('make one refresh for concurrent 401s in two tabs, under one lock, and both go on', async () => {
    const { api, locks, tab } = origin({});
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await b.client.restore();
    api.expireAccessTokens();
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => a.client.listSessions()),
      ...Array.from({ length: 5 }, () => b.client.listSessions()),
    ]);
    expect(results).toHaveLength(10);
    expect(api.refreshCalls()).toHaveLength(1);
    expect(api.revoked).toBe(false);
    expect(locks.granted.length).toBeGreaterThan(0);
    expect(locks.granted.every((name) => name.startsWith('tenant-auth-client:refresh:'))).toBe(true);
  });

  it('never present a refresh token another tab has rotated: the timers of both fire, one refreshes', async () => {
    const { time, api, tab } = origin({});
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await b.client.restore();
    await time.advance(870_000);
    expect(api.refreshCalls()).toHaveLength(1);
    // Well past the grace period, both are still signed in with the rotated tokens.
    await time.advance(60_000);
    api.expireAccessTokens();
    api.accessTtl = 900;
    expect(await a.client.listSessions()).toHaveLength(1);
    expect(await b.client.listSessions()).toHaveLength(1);
    expect(api.revoked).toBe(false);
    const presented = api.refreshCalls().map((c) => (c.body as { refreshToken: string }).refreshToken);
    expect(new Set(presented).size).toBe(presented.length);
    expect(b.changes.map((c) => `${c.type}:${c.source}`)).toContain('refreshed:other_tab');
  });

  it('read the storage again before refreshing, even with neither locks nor a channel', async () => {
    const { time, api, tab } = origin({ locks: false, channel: false });
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await b.client.restore();
    await a.client.refresh();
    // B never heard of it; 30 s later (past the grace period) its request meets a 401.
    await time.advance(30_000);
    api.expireAccessTokens();
    await a.client.refresh();
    expect(await b.client.listSessions()).toHaveLength(1);
    expect(api.revoked).toBe(false);
    expect(api.refreshCalls()).toHaveLength(2);
  });

  it('without Web Locks, wait for a tab that announced its refresh instead of refreshing too', async () => {
    const { time, api, hub, tab } = origin({ locks: false });
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await b.client.restore();
    await settle();
    api.expireAccessTokens();
    const release = api.holdNextRefresh();
    const refreshing = a.client.refresh();
    await settle();
    expect(hub.posted.some((m) => (m as { type: string }).type === 'refreshing')).toBe(true);
    // B's request meets a 401 while A's refresh is on its way: B waits for it instead of refreshing too.
    const request = b.client.listSessions();
    await settle();
    release();
    await refreshing;
    await settle();
    expect(await request).toHaveLength(1);
    expect(api.refreshCalls()).toHaveLength(1);
    expect(time.pending()).toBeGreaterThan(0);
  });

  it('tell the other tabs of a logout and of a revoked session', async () => {
    const { api, tab } = origin({});
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await b.client.restore();
    await a.client.logout();
    await settle();
    expect(b.changes.at(-1)).toEqual({ type: 'signed_out', reason: 'logout', source: 'other_tab' });
    expect(await b.client.getSession()).toBeNull();

    await a.client.login(CREDENTIALS);
    await settle();
    expect(b.changes.at(-1)?.type).toBe('signed_in');
    api.revoked = true;
    await expect(a.client.refresh()).rejects.toMatchObject({ code: 'invalid_token' });
    await settle();
    expect(a.changes.at(-1)).toEqual({ type: 'revoked', source: 'local' });
    expect(b.changes.at(-1)).toEqual({ type: 'revoked', source: 'other_tab' });
  });

  it('leave tabs with sessions of their own alone (memory storage in each)', async () => {
    const { api, tab } = origin({ storage: () => memoryTokenStorage() });
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await settle();
    // B holds no session; a message of A's session is not B's business.
    expect(b.changes).toEqual([]);
    await a.client.logout();
    await settle();
    expect(b.changes).toEqual([]);
    expect(api.revoked).toBe(true);
  });
});

describe('tabs sharing the cookies (cookie mode)', () => {
  it('stay signed in when their timers fire at once: no replay, at most one refresh each', async () => {
    const { time, api, tab } = origin({ mode: 'cookie' });
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await settle();
    // B learnt of the sign-in through the channel, and schedules from it.
    expect(b.changes.map((c) => c.type)).toEqual(['signed_in']);
    // Both timers fire together. This fake answers at once, so A's refresh can end before its
    // "refreshing" reaches B, and B then refreshes too, with the cookie A's answer set: two refreshes, no
    // replay. (One refresh when B hears of A's first is the next test's case.)
    await time.advance(870_000);
    expect(api.refreshCalls().length).toBeGreaterThanOrEqual(1);
    expect(api.refreshCalls().length).toBeLessThanOrEqual(2);
    expect(api.revoked).toBe(false);
    expect(await a.client.listSessions()).toHaveLength(1);
    expect(await b.client.listSessions()).toHaveLength(1);
  });

  it('take the result of a tab whose lock came free before its news arrived, instead of refreshing too', async () => {
    const { api, tab } = origin({ mode: 'cookie' });
    const a = tab();
    const b = tab();
    await a.client.login(CREDENTIALS);
    await settle();
    api.expireAccessTokens();
    const release = api.holdNextRefresh();
    // A meets a 401 and refreshes under the lock; B meets one too and waits for the lock.
    const first = a.client.listSessions();
    await settle();
    const second = b.client.listSessions();
    await settle();
    // The fake lock goes to B at once when A lets it go, while A's "refreshed" reaches B a task later:
    // the order a browser does not promise either (Chromium's lock and channel are not ordered).
    release();
    expect(await first).toHaveLength(1);
    expect(await second).toHaveLength(1);
    expect(api.refreshCalls()).toHaveLength(1);
    expect(api.revoked).toBe(false);
  });
});
