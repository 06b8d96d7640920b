import type {
  BroadcastChannelLike,
  ClientClock,
  ClientTimers,
  FetchLike,
  LockManagerLike,
  TokenResponse,
} from '../src/index.js';

/** A clock and timers that move only when told. */
export class FakeTime implements ClientClock, ClientTimers {
  current = Date.UTC(2026, 4, 1, 12);
  private timers: { id: number; at: number; callback: () => void }[] = [];
  private nextId = 1;

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ id, at: this.current + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** When the next timer is due, or undefined. */
  nextAt(): number | undefined {
    return this.timers.map((t) => t.at).sort((a, b) => a - b)[0];
  }

  pending(): number {
    return this.timers.length;
  }

  /**
   * Moves the clock by `ms`, firing every timer that falls due on the way, in order, and lets them run.
   * Timers due at the same instant fire together before any of them runs on: as two tabs' timers do, each
   * on its own event loop.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const at = this.nextAt();
      if (at === undefined || at > target) break;
      const due = this.timers.filter((t) => t.at === at);
      this.timers = this.timers.filter((t) => t.at !== at);
      this.current = Math.max(this.current, at);
      for (const timer of due) timer.callback();
      await settle();
    }
    this.current = target;
    await settle();
  }
}

/** Lets promises and zero-delay real timers run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

export interface Recorded {
  method: string;
  path: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  credentials: string | undefined;
}

type Handler = (request: Recorded) => Response | Promise<Response>;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

export const problem = (
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response =>
  new Response(
    JSON.stringify({ type: 'about:blank', title: 'Error', status, code, detail: `${code}.`, ...extra }),
    { status, headers: { 'content-type': 'application/problem+json', ...headers } },
  );

export const USER = {
  id: '0190f5c8-3a3c-7a4b-9e2f-3c4d5e6f7a8b',
  email: 'ada@example.com',
  tenantId: '0190f5c8-3a3c-7a4b-9e2f-000000000001',
  role: 'owner' as const,
  emailVerified: true,
};
export const SESSION_ID = '0190f5c8-3a3c-7a4b-9e2f-000000000002';

/**
 * A server of the refresh-token rules of API.md, in memory: each refresh rotates; the previous token
 * within the grace period gets the same child; anything older is a replay that revokes the session.
 * Only the newest access token is accepted. Every request is recorded.
 */
export class FakeApi {
  readonly calls: Recorded[] = [];
  accessTtl = 900;
  refreshTtl = 604_800;
  graceMs = 10_000;
  generation = 1;
  revoked = false;
  /** When the current refresh token was issued (for the grace period). */
  rotatedAt = 0;
  /** Extra routes, tried first. */
  readonly routes = new Map<string, Handler>();
  /** Whether the (cookie-mode) browser holds the cookies. */
  cookies = false;
  /** When set, the next refresh waits for it (and clears it). */
  refreshGate: Promise<void> | undefined;

  /** Holds the next refresh until the returned function is called. */
  holdNextRefresh(): () => void {
    let release!: () => void;
    this.refreshGate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return release;
  }

  constructor(private readonly time: { now(): number }) {}

  access(n = this.generation) {
    return `access-${n}`;
  }
  refresh(n = this.generation) {
    return `refresh-${n}`;
  }

  tokenResponse(): TokenResponse {
    return {
      user: USER,
      session: {
        id: SESSION_ID,
        expiresAt: new Date(this.time.now() + this.refreshTtl * 1000).toISOString(),
        amr: ['pwd'],
        authTime: new Date(this.time.now()).toISOString(),
      },
      accessToken: this.access(),
      refreshToken: this.refresh(),
      tokenType: 'Bearer',
      expiresIn: this.accessTtl,
      refreshExpiresIn: this.refreshTtl,
    };
  }

  refreshCalls(): Recorded[] {
    return this.calls.filter((c) => c.path === '/api/v1/auth/refresh');
  }

  /** Makes every access token issued so far invalid (they expired, as far as the server knows). */
  expireAccessTokens() {
    this.acceptedAccess = undefined;
  }

  private acceptedAccess: string | undefined;

  private bearer(request: Recorded): string | undefined {
    const header = request.headers.authorization;
    return header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  }

  /** Whether a request carries a valid access token (the header, or the cookie in cookie mode). */
  authenticated(request: Recorded): boolean {
    if (this.revoked) return false;
    const token =
      this.bearer(request) ??
      (request.credentials === 'include' && this.cookies ? this.acceptedAccess : undefined);
    return token !== undefined && token === this.acceptedAccess;
  }

  /** A new token response (a sign-in, a re-authentication), the tokens before it no longer accepted. */
  signIn(status: number, extra: Record<string, unknown> = {}): Response {
    this.generation += 1;
    this.revoked = false;
    this.rotatedAt = this.time.now();
    this.acceptedAccess = this.access();
    this.cookies = true;
    return json(status, { ...this.tokenResponse(), ...extra });
  }

  private doRefresh(request: Recorded): Response {
    const body = request.body as { refreshToken?: string } | undefined;
    const presented =
      this.bearer(request) ??
      body?.refreshToken ??
      (request.credentials === 'include' && this.cookies ? this.refresh() : undefined);
    const unauthorized = () =>
      problem(401, 'invalid_token', {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
    if (presented === undefined || this.revoked) return unauthorized();
    if (presented === this.refresh()) {
      this.generation += 1;
      this.rotatedAt = this.time.now();
      this.acceptedAccess = this.access();
      return json(200, this.tokenResponse());
    }
    if (presented === this.refresh(this.generation - 1) && this.time.now() - this.rotatedAt <= this.graceMs) {
      return json(200, this.tokenResponse());
    }
    // A replay: the whole session goes.
    this.revoked = true;
    this.cookies = false;
    return unauthorized();
  }

  readonly fetch: FetchLike = async (url, init) => {
    const parsed = new URL(url, 'http://api.test');
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const request: Recorded = {
      method: init.method ?? 'GET',
      path: parsed.pathname,
      url,
      headers,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      credentials: init.credentials,
    };
    this.calls.push(request);
    const custom = this.routes.get(`${request.method} ${request.path}`);
    if (custom) return custom(request);
    switch (`${request.method} ${request.path}`) {
      case 'POST /api/v1/auth/login':
        return this.signIn(200);
      case 'POST /api/v1/auth/register':
        return this.signIn(201, {
          tenant: { id: USER.tenantId, slug: 'acme', name: 'Acme', createdAt: '2026-05-01T12:00:00.000Z' },
        });
      case 'POST /api/v1/auth/refresh': {
        const gate = this.refreshGate;
        this.refreshGate = undefined;
        if (gate) await gate;
        return this.doRefresh(request);
      }
      case 'POST /api/v1/auth/logout':
        this.revoked = true;
        this.cookies = false;
        return new Response(null, { status: 204 });
      default:
        if (!this.authenticated(request)) {
          return problem(401, 'invalid_token', {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
        }
        return this.authorized(request);
    }
  };

  /** The answers of the authenticated routes the tests use. */
  private authorized(request: Recorded): Response {
    switch (`${request.method} ${request.path}`) {
      case 'GET /api/v1/sessions':
        return json(200, {
          sessions: [
            {
              id: SESSION_ID,
              deviceInfo: 'test',
              ipAddress: null,
              userAgent: null,
              createdAt: '2026-05-01T12:00:00.000Z',
              lastUsedAt: '2026-05-01T12:00:00.000Z',
              expiresAt: '2026-05-08T12:00:00.000Z',
              current: true,
            },
          ],
        });
      case 'GET /api/v1/tenants/me':
        return json(200, {
          id: USER.tenantId,
          slug: 'acme',
          name: 'Acme',
          createdAt: '2026-05-01T12:00:00.000Z',
        });
      default:
        return new Response(null, { status: 204 });
    }
  }
}

/** An exclusive lock per name, like `navigator.locks`, shared by every client given the same manager. */
export class FakeLocks implements LockManagerLike {
  private tails = new Map<string, Promise<unknown>>();
  readonly granted: string[] = [];

  request<T>(name: string, callback: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(name) ?? Promise.resolve();
    const run = previous.then(
      () => {
        this.granted.push(name);
        return callback();
      },
      () => {
        this.granted.push(name);
        return callback();
      },
    );
    this.tails.set(
      name,
      run.catch(() => undefined),
    );
    return run;
  }
}

/** Channels that deliver to each other asynchronously, like `BroadcastChannel`s of one name. */
export class FakeChannelHub {
  private channels = new Set<BroadcastChannelLike>();
  readonly posted: unknown[] = [];

  open(): BroadcastChannelLike {
    const hub = this;
    const channel: BroadcastChannelLike = {
      onmessage: null,
      postMessage(message: unknown) {
        hub.posted.push(message);
        const data = structuredClone(message);
        for (const other of hub.channels) {
          if (other === channel) continue;
          setTimeout(() => other.onmessage?.({ data }), 0);
        }
      },
      close() {
        hub.channels.delete(channel);
      },
    };
    this.channels.add(channel);
    return channel;
  }
}
