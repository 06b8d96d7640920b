import type {
  AcceptInvitationRequest,
  AuditEvent,
  AuditEventPage,
  ChangeEmailRequest,
  ChangeMemberRoleRequest,
  ChangePasswordRequest,
  ConfirmEmailChangeRequest,
  CreateInvitationRequest,
  DeleteAccountRequest,
  ForgotPasswordRequest,
  Health,
  Invitation,
  Jwks,
  ListAuditEventsQuery,
  LoginRequest,
  Member,
  OperationId,
  OperationTypes,
  RegisterRequest,
  ResetPasswordRequest,
  Session,
  Tenant,
  TokenResponse,
  VerifyEmailRequest,
} from './contract.generated.js';
import { OPERATIONS } from './contract.generated.js';
import {
  type CrossTab,
  type CrossTabMessage,
  type CrossTabOptions,
  inBrowser,
  openCrossTab,
} from './cross-tab.js';
import { errorOf, isTenantAuthClientError, networkError, TenantAuthClientError } from './errors.js';
import { memoryTokenStorage, type SessionState, type TokenStorage, type Tokens } from './tokens.js';

/**
 * The `fetch` the client calls: the platform's by default.
 *
 * @example
 * const fetchLike: FetchLike = (input, init) => fetch(input, init);
 */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * The clock of the client (milliseconds since the epoch), injectable for tests.
 *
 * @example
 * const clock: ClientClock = { now: () => Date.now() };
 */
export interface ClientClock {
  now(): number;
}

/**
 * The timers of the client, injectable for tests.
 *
 * @example
 * const timers: ClientTimers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as number) };
 */
export interface ClientTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Why a session ended on this side (`signed_out` of {@link SessionChange}): a logout, the account deleted,
 * this session revoked by the user (from its session list), or the refresh token's lifetime over.
 *
 * @example
 * const reason: SignOutReason = 'logout';
 */
export type SignOutReason = 'logout' | 'account_deleted' | 'session_revoked' | 'expired';

/**
 * A change of the session, for a UI to react to (`onSessionChange`). `source` tells whether this client
 * made it (`local`) or another tab sharing the session did (`other_tab`).
 *
 * - `signed_in`: login, registration, accepting an invitation, or a session restored.
 * - `refreshed`: new tokens (silently, before the access token expired, or after a `401`).
 * - `signed_out`: the session ended on purpose; see {@link SignOutReason}.
 * - `revoked`: the server refused to refresh a session the client held as valid: it was revoked
 *   elsewhere (a logout on another device, a password reset, an administrator) or after a refresh token
 *   was replayed. The user must sign in again.
 *
 * @example
 * client.onSessionChange((change) => {
 *   if (change.type === 'revoked') showSignIn('Your session has ended. Please sign in again.');
 * });
 */
export type SessionChange =
  | { type: 'signed_in'; state: SessionState; source: 'local' | 'other_tab' }
  | { type: 'refreshed'; state: SessionState; source: 'local' | 'other_tab' }
  | { type: 'signed_out'; reason: SignOutReason; source: 'local' | 'other_tab' }
  | { type: 'revoked'; source: 'local' | 'other_tab' };

/**
 * Options of {@link createTenantAuthClient}.
 *
 * @example
 * const options: TenantAuthClientOptions = { baseUrl: 'https://api.example.com/api/v1', mode: 'cookie' };
 */
export interface TenantAuthClientOptions {
  /** The API's prefix: `https://api.example.com/api/v1`, or `/api/v1` on the same origin. */
  baseUrl: string;
  /**
   * `cookie`: the server's `HttpOnly` cookies carry the tokens (`credentials: 'include'`); no token is
   * ever visible to JavaScript. For browsers. `bearer`: the client keeps the tokens (in `storage`) and
   * sends `Authorization: Bearer`; for Node, native apps and browsers that cannot use the cookies.
   */
  mode: 'cookie' | 'bearer';
  /** Bearer mode only: where the tokens live. Default {@link memoryTokenStorage}. */
  storage?: TokenStorage;
  /** Default: the platform's `fetch`. */
  fetch?: FetchLike;
  /** Default: `Date.now`. */
  clock?: ClientClock;
  /** Default: the platform's `setTimeout` / `clearTimeout` (unref'd in Node). */
  timers?: ClientTimers;
  /** Refresh shortly before the access token expires. Default `true`. */
  autoRefresh?: boolean;
  /**
   * How long before the access token expires to refresh it, in seconds: at most this, and at most a
   * quarter of the token's lifetime. Default 30.
   */
  refreshMarginSeconds?: number;
  /**
   * Coordination with the other tabs of the origin: one refresh at a time across tabs (Web Locks), and
   * the result shared with them (BroadcastChannel). Default: on in a browser, off elsewhere.
   */
  crossTab?: boolean | CrossTabOptions;
  /** Called on every {@link SessionChange}; see also `client.onSessionChange`. */
  onSessionChange?: (change: SessionChange) => void;
}

/**
 * The result of signing in (login, accepting an invitation, a restored session): the session as the
 * client knows it, never a token.
 *
 * @example
 * const { user, session }: SignInResult = await client.login({ email, password });
 */
export type SignInResult = SessionState;

/**
 * The result of registration: the session, and the tenant it created.
 *
 * @example
 * const { tenant, user }: RegisterResult = await client.register({ email, password, tenantName: 'Acme' });
 */
export type RegisterResult = SessionState & { tenant: Tenant };

/**
 * The input of {@link TenantAuthClient.request}: the path parameters, query and body of an operation,
 * typed from the contract.
 *
 * @example
 * const input: RequestInput<'getTenant'> = { params: { id: tenantId } };
 */
export type RequestInput<K extends OperationId> = (OperationTypes[K]['params'] extends undefined
  ? { params?: undefined }
  : { params: OperationTypes[K]['params'] }) &
  (OperationTypes[K]['query'] extends undefined
    ? { query?: undefined }
    : { query?: OperationTypes[K]['query'] }) &
  (undefined extends OperationTypes[K]['body']
    ? { body?: OperationTypes[K]['body'] }
    : { body: OperationTypes[K]['body'] });

/**
 * A client of the tenant-auth HTTP API (API.md, 1.0 and 1.1): every route as a typed method, with silent
 * refresh. Create it with {@link createTenantAuthClient}.
 *
 * @example
 * const client = createTenantAuthClient({ baseUrl: '/api/v1', mode: 'cookie' });
 * await client.restore();
 * const sessions = await client.listSessions();
 */
export interface TenantAuthClient {
  readonly mode: 'cookie' | 'bearer';

  /** `POST /auth/register`: creates a tenant and its owner, and signs in. */
  register(body: RegisterRequest): Promise<RegisterResult>;
  /** `POST /auth/login`. */
  login(body: LoginRequest): Promise<SignInResult>;
  /** `POST /auth/invitations/accept`: creates the account in the inviting tenant, and signs in. */
  acceptInvitation(body: AcceptInvitationRequest): Promise<SignInResult>;
  /** `POST /auth/refresh`, now (single-flight: concurrent calls share one request). */
  refresh(): Promise<SessionState>;
  /**
   * Picks up a session that exists already (cookie mode: the cookies, by refreshing; bearer mode: the
   * tokens of the storage), or `null` when there is none. Call it when the application starts.
   */
  restore(): Promise<SessionState | null>;
  /** `POST /auth/logout`; the session is forgotten locally whatever the server answers. */
  logout(): Promise<void>;
  /** The session as the client knows it, or `null`. */
  getSession(): Promise<SessionState | null>;
  /**
   * Bearer mode: a valid access token (refreshed first when it has expired), for the application's own
   * API; `null` when signed out. Cookie mode: always `null` (the token is `HttpOnly`).
   */
  getAccessToken(): Promise<string | null>;
  /**
   * `fetch` for the application's own API routes (`requireAuth()` on the server): with the access token
   * (bearer) or the cookies (cookie mode), and, on a `401 invalid_token`, one refresh and one retry.
   */
  fetch(url: string, init?: RequestInit): Promise<Response>;

  /** `GET /tenants/me`. */
  getMyTenant(): Promise<Tenant>;
  /** `GET /tenants/:id` (only the caller's own; any other is `not_found`). */
  getTenant(id: string): Promise<Tenant>;
  /** `GET /sessions`: the caller's active sessions. */
  listSessions(): Promise<Session[]>;
  /** `DELETE /sessions/:id`. Revoking the current session signs this client out. */
  revokeSession(id: string): Promise<void>;
  /** `DELETE /sessions` (`?except=current` with `exceptCurrent`): how many were revoked. */
  revokeAllSessions(options?: { exceptCurrent?: boolean }): Promise<number>;

  /** `GET /tenants/me/members`. */
  listMembers(): Promise<Member[]>;
  /** `PATCH /tenants/me/members/:userId` (admin). */
  changeMemberRole(userId: string, body: ChangeMemberRoleRequest): Promise<Member>;
  /** `DELETE /tenants/me/members/:userId` (admin). */
  removeMember(userId: string): Promise<void>;
  /** `POST /tenants/me/invitations` (admin). */
  createInvitation(body: CreateInvitationRequest): Promise<Invitation>;
  /** `GET /tenants/me/invitations` (admin). */
  listInvitations(): Promise<Invitation[]>;
  /** `DELETE /tenants/me/invitations/:id` (admin). */
  revokeInvitation(id: string): Promise<void>;

  /** `POST /auth/password/forgot`: the same answer whether or not the address has an account. */
  forgotPassword(body: ForgotPasswordRequest): Promise<void>;
  /** `POST /auth/password/reset`: every session of the user is revoked. */
  resetPassword(body: ResetPasswordRequest): Promise<void>;
  /** `POST /auth/password/change`: every other session is revoked. */
  changePassword(body: ChangePasswordRequest): Promise<void>;
  /** `POST /auth/email/verification`. */
  requestEmailVerification(): Promise<void>;
  /** `POST /auth/email/verify`. */
  verifyEmail(body: VerifyEmailRequest): Promise<void>;
  /** `POST /auth/email/change`. */
  changeEmail(body: ChangeEmailRequest): Promise<void>;
  /** `POST /auth/email/change/confirm`. */
  confirmEmailChange(body: ConfirmEmailChangeRequest): Promise<void>;
  /** `DELETE /users/me`; signs this client out. */
  deleteAccount(body: DeleteAccountRequest): Promise<void>;

  /** `GET /tenants/me/audit-events` (admin): one page, newest first; `next` is the cursor of the next. */
  listAuditEvents(query?: ListAuditEventsQuery): Promise<AuditEventPage>;
  /** Every audit event matching `query`, newest first, page after page (admin). */
  auditEvents(query?: Omit<ListAuditEventsQuery, 'before'>): AsyncIterable<AuditEvent>;

  /** `GET /.well-known/jwks.json`. */
  jwks(): Promise<Jwks>;
  /** `GET /health`: also resolves (with `status: 'degraded'`) when the server answers 503 with a health body. */
  health(): Promise<Health>;

  /** Any operation of the contract by its `operationId`, typed from it. */
  request<K extends OperationId>(
    operation: K,
    input: RequestInput<K>,
  ): Promise<OperationTypes[K]['response']>;

  /** Subscribes to {@link SessionChange}s; returns the unsubscribe function. */
  onSessionChange(listener: (change: SessionChange) => void): () => void;
  /** Stops the refresh timer and closes the cross-tab channel. */
  close(): void;
}

/** Longest delay a timer takes (2^31 - 1 ms). */
const MAX_DELAY_MS = 2_147_483_647;
/** A token that expires within this is treated as expired (requests take time). */
const EXPIRY_SLACK_MS = 1000;
/** How long a tab waits for another that announced a refresh before it refreshes itself. */
const PEER_REFRESH_WAIT_MS = 5000;

function configurationError(message: string): TypeError {
  return new TypeError(`createTenantAuthClient: ${message}`);
}

function defaultTimers(): ClientTimers {
  return {
    setTimeout(callback, ms) {
      const handle = setTimeout(callback, ms) as unknown as { unref?: () => void };
      handle.unref?.();
      return handle;
    },
    clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
  };
}

function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Creates a client of the tenant-auth HTTP API. No dependency: `fetch` only, in browsers and in Node
 * `>=22.17`.
 *
 * - **Cookie mode** (browsers): `credentials: 'include'`, the server's `HttpOnly` cookies carry the
 *   tokens, JavaScript never sees one. The server must list the page's origin (`CORS_ORIGINS`).
 * - **Bearer mode**: the tokens live in `storage` (in memory by default) and travel as
 *   `Authorization: Bearer`.
 *
 * Both refresh silently shortly before the access token expires and once after a `401 invalid_token`,
 * single-flight (ten concurrent `401`s make one refresh), and across tabs one at a time.
 *
 * @example
 * import { createTenantAuthClient, isTenantAuthClientError } from 'tenant-auth-client';
 *
 * const client = createTenantAuthClient({ baseUrl: 'https://api.example.com/api/v1', mode: 'cookie' });
 * client.onSessionChange((change) => {
 *   if (change.type === 'revoked' || change.type === 'signed_out') router.go('/sign-in');
 * });
 * const { user } = await client.login({ email: 'ada@example.com', password: 'Correct-Horse-42' });
 */
export function createTenantAuthClient(options: TenantAuthClientOptions): TenantAuthClient {
  if (typeof options !== 'object' || options === null) throw configurationError('options must be an object');
  const { mode } = options;
  if (mode !== 'cookie' && mode !== 'bearer') throw configurationError("mode must be 'cookie' or 'bearer'");
  if (typeof options.baseUrl !== 'string' || options.baseUrl === '') {
    throw configurationError('baseUrl must be the API prefix, such as https://api.example.com/api/v1');
  }
  if (mode === 'cookie' && options.storage !== undefined) {
    throw configurationError(
      'storage is for bearer mode: in cookie mode the tokens stay in HttpOnly cookies',
    );
  }
  const margin = options.refreshMarginSeconds ?? 30;
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 0) {
    throw configurationError('refreshMarginSeconds must be a number >= 0');
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const storage: TokenStorage = options.storage ?? memoryTokenStorage();
  const fetchFn: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const clock: ClientClock = options.clock ?? { now: () => Date.now() };
  const timers: ClientTimers = options.timers ?? defaultTimers();
  const autoRefresh = options.autoRefresh ?? true;
  const marginMs = margin * 1000;
  const instanceId = randomId();

  const listeners = new Set<(change: SessionChange) => void>();
  if (options.onSessionChange) listeners.add(options.onSessionChange);

  /** Cookie mode: what the client knows of the session (nothing after a reload, until restored). */
  let cookieState: SessionState | null = null;
  /** The session last known, in either mode: for events, cross-tab keys and the timer. */
  let known: SessionState | null = null;
  /** Counts the refreshes seen (local or another tab's): a request that failed before one may retry. */
  let generation = 0;
  let inflight: Promise<SessionState> | null = null;
  let timer: unknown;
  let closed = false;
  let peerRefreshingUntil = 0;
  let peerWaiters: (() => void)[] = [];

  const crossTabOption = options.crossTab ?? inBrowser();
  const crossTab: CrossTab | null =
    crossTabOption === false
      ? null
      : openCrossTab(crossTabOption === true ? {} : crossTabOption, instanceId, (message) => {
          void onPeer(message);
        });

  const emit = (change: SessionChange) => {
    for (const listener of [...listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own.
      }
    }
  };

  const keyOf = (state: SessionState | null): string =>
    mode === 'cookie' ? 'cookie' : (state?.session.id ?? '');

  const marginOf = (state: SessionState) =>
    Math.min(marginMs, Math.max(0, (state.accessTokenExpiresAt - state.receivedAt) / 4));
  const isDue = (state: SessionState) => clock.now() >= state.accessTokenExpiresAt - marginOf(state);
  const isExpired = (state: SessionState) => clock.now() >= state.accessTokenExpiresAt - EXPIRY_SLACK_MS;
  const refreshExpired = (state: SessionState) => clock.now() >= state.refreshTokenExpiresAt;

  const stateOf = (body: TokenResponse, receivedAt: number): SessionState => ({
    user: body.user,
    session: body.session,
    accessTokenExpiresAt: receivedAt + body.expiresIn * 1000,
    refreshTokenExpiresAt: receivedAt + body.refreshExpiresIn * 1000,
    receivedAt,
  });
  const tokensOf = (body: TokenResponse, receivedAt: number): Tokens => ({
    ...stateOf(body, receivedAt),
    accessToken: body.accessToken,
    refreshToken: body.refreshToken,
  });
  const withoutTokens = (tokens: Tokens): SessionState => ({
    user: tokens.user,
    session: tokens.session,
    accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
    receivedAt: tokens.receivedAt,
  });

  async function currentState(): Promise<SessionState | null> {
    if (mode === 'cookie') return cookieState;
    const tokens = await storage.get();
    return tokens ? withoutTokens(tokens) : null;
  }

  // --- the refresh timer -------------------------------------------------------------------------

  function clearTimer() {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  }

  function schedule(state: SessionState | null, delayMs?: number) {
    clearTimer();
    if (!autoRefresh || closed || !state) return;
    const at = delayMs === undefined ? state.accessTokenExpiresAt - marginOf(state) : clock.now() + delayMs;
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, at - clock.now()));
    timer = timers.setTimeout(() => {
      timer = undefined;
      void refreshIfDue();
    }, delay);
  }

  async function refreshIfDue(): Promise<void> {
    if (closed) return;
    const state = await currentState();
    if (!state) return;
    if (!isDue(state)) {
      schedule(state);
      return;
    }
    try {
      await refreshOnce(await staleMark());
    } catch (err) {
      // Refused: the session is over (reported by refreshOnce). Anything else (offline, 429, 503): retry.
      if (isTenantAuthClientError(err, 'invalid_token')) return;
      const now = await currentState();
      if (!now || refreshExpired(now)) return;
      const retryAfter = isTenantAuthClientError(err) ? (err.retryAfterSeconds ?? 10) : 10;
      schedule(now, Math.max(1, retryAfter) * 1000);
    }
  }

  // --- session changes, here and from other tabs ---------------------------------------------------

  /** Records a new session state (or none) and reschedules. */
  function adopt(state: SessionState | null) {
    known = state;
    if (mode === 'cookie') cookieState = state;
    schedule(state);
  }

  async function signedIn(body: TokenResponse, receivedAt: number): Promise<SessionState> {
    const state = stateOf(body, receivedAt);
    if (mode === 'bearer') await storage.set(tokensOf(body, receivedAt));
    generation += 1;
    adopt(state);
    emit({ type: 'signed_in', state, source: 'local' });
    crossTab?.post({ type: 'signed_in', key: keyOf(state), state });
    return state;
  }

  /** Forgets the session here (and in a shared storage) and tells the other tabs. */
  async function endSession(
    change: { type: 'signed_out'; reason: SignOutReason } | { type: 'revoked' },
    presentedRefreshToken?: string,
  ) {
    const before = known ?? (await currentState());
    if (mode === 'bearer') {
      // Only the tokens that failed: another tab may have stored newer ones meanwhile (no Web Locks).
      const stored = await storage.get();
      if (stored && (presentedRefreshToken === undefined || stored.refreshToken === presentedRefreshToken)) {
        await storage.set(null);
      }
    }
    generation += 1;
    adopt(null);
    if (!before) return;
    emit({ ...change, source: 'local' });
    const key = keyOf(before);
    if (change.type === 'revoked') crossTab?.post({ type: 'revoked', key });
    else crossTab?.post({ type: 'signed_out', key, reason: change.reason });
  }

  /** Whether a message of another tab is about this client's session. */
  async function concerns(message: CrossTabMessage): Promise<boolean> {
    // Cookie mode: every tab shares the cookies, so every message is about this session.
    if (mode === 'cookie') return true;
    // Bearer mode: only tabs sharing the storage share a session (tabs with a memory storage each have
    // their own). A session this client knows, or a new one that its storage now holds.
    const mine = keyOf(known);
    if (mine !== '' && message.key === mine) return true;
    if (message.type !== 'signed_in' && message.type !== 'refreshed') return false;
    return (await storage.get())?.session.id === message.key;
  }

  async function onPeer(message: CrossTabMessage) {
    if (closed || !(await concerns(message))) return;
    if (message.type === 'refreshing') {
      peerRefreshingUntil = clock.now() + PEER_REFRESH_WAIT_MS;
      return;
    }
    const waiters = peerWaiters;
    peerWaiters = [];
    peerRefreshingUntil = 0;
    generation += 1;
    const had = known !== null;
    switch (message.type) {
      case 'refreshed':
      case 'signed_in': {
        const isNew = known?.session.id !== message.state.session.id;
        adopt(message.state);
        emit({ type: isNew ? 'signed_in' : message.type, state: message.state, source: 'other_tab' });
        break;
      }
      case 'revoked':
        adopt(null);
        if (had) emit({ type: 'revoked', source: 'other_tab' });
        break;
      case 'signed_out':
        adopt(null);
        if (had) emit({ type: 'signed_out', reason: message.reason as SignOutReason, source: 'other_tab' });
        break;
    }
    for (const resolve of waiters) resolve();
  }

  /** Waits for a tab that announced a refresh to finish it (or for a time-out). */
  function waitForPeer(): Promise<void> {
    const remaining = peerRefreshingUntil - clock.now();
    if (remaining <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const handle = timers.setTimeout(done, remaining);
      function done() {
        timers.clearTimeout(handle);
        peerWaiters = peerWaiters.filter((w) => w !== done);
        resolve();
      }
      peerWaiters.push(done);
    });
  }

  // --- refreshing ----------------------------------------------------------------------------------

  /** What a caller held when it decided that a refresh was needed. */
  interface StaleMark {
    accessToken: string | undefined;
    generation: number;
  }

  async function staleMark(): Promise<StaleMark> {
    const tokens = mode === 'bearer' ? await storage.get() : null;
    return { accessToken: tokens?.accessToken, generation };
  }

  /** The session another tab (or an earlier call) refreshed since `stale`, if any. */
  async function refreshedSince(stale: StaleMark): Promise<SessionState | null> {
    if (mode === 'bearer') {
      const tokens = await storage.get();
      if (tokens && tokens.accessToken !== stale.accessToken && !isDue(tokens)) {
        const state = withoutTokens(tokens);
        if (known?.accessTokenExpiresAt !== state.accessTokenExpiresAt) adopt(state);
        return state;
      }
      return null;
    }
    return generation !== stale.generation && cookieState && !isDue(cookieState) ? cookieState : null;
  }

  /**
   * One refresh for everyone who asks while it runs (single-flight in this page), one tab at a time
   * (Web Locks), skipped when another tab refreshed since `stale` (`null`: refresh in any case).
   */
  function refreshOnce(stale: StaleMark | null): Promise<SessionState> {
    if (inflight) return inflight;
    const run = async (): Promise<SessionState> => {
      const already = stale && (await refreshedSince(stale));
      if (already) return already;
      // A tab that announced a refresh may still be at it (no Web Locks), or may have let the lock go
      // before its result reached this tab (a lock and a channel message are not ordered): wait for it.
      await waitForPeer();
      const meanwhile = stale && (await refreshedSince(stale));
      if (meanwhile) return meanwhile;
      return performRefresh();
    };
    const locked = async () => {
      const key = mode === 'cookie' ? 'cookie' : ((await storage.get())?.session.id ?? 'none');
      const locks = crossTab?.locks;
      return locks ? locks.request(`refresh:${key}`, run) : run();
    };
    inflight = locked().finally(() => {
      inflight = null;
    });
    return inflight;
  }

  async function performRefresh(): Promise<SessionState> {
    let presented: string | undefined;
    let body: OperationTypes['refresh']['body'];
    if (mode === 'bearer') {
      const tokens = await storage.get();
      if (!tokens) throw notSignedIn();
      if (refreshExpired(tokens)) {
        await endSession({ type: 'signed_out', reason: 'expired' }, tokens.refreshToken);
        throw notSignedIn();
      }
      presented = tokens.refreshToken;
      body = { refreshToken: tokens.refreshToken };
    }
    const before = known;
    crossTab?.post({ type: 'refreshing', key: keyOf(before) });
    let result: { data: TokenResponse; receivedAt: number };
    try {
      result = await exchange('refresh', { body }, false);
    } catch (err) {
      if (isTenantAuthClientError(err, 'invalid_token')) {
        const expired = before !== null && refreshExpired(before);
        await endSession(
          expired ? { type: 'signed_out', reason: 'expired' } : { type: 'revoked' },
          presented,
        );
      }
      throw err;
    }
    const state = stateOf(result.data, result.receivedAt);
    if (mode === 'bearer') await storage.set(tokensOf(result.data, result.receivedAt));
    generation += 1;
    const isNew = before?.session.id !== state.session.id;
    adopt(state);
    emit({ type: isNew ? 'signed_in' : 'refreshed', state, source: 'local' });
    crossTab?.post({ type: isNew ? 'signed_in' : 'refreshed', key: keyOf(state), state });
    return state;
  }

  function notSignedIn(): TenantAuthClientError {
    return new TenantAuthClientError('invalid_token', 'Not signed in.', { status: 401 });
  }

  // --- requests ------------------------------------------------------------------------------------

  function urlOf(
    path: string,
    params: Record<string, string> | undefined,
    query: object | undefined,
  ): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params?.[name];
      if (typeof value !== 'string') throw new TypeError(`the path parameter ${name} is required`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) search.set(name, String(value));
    }
    const qs = search.toString();
    return `${baseUrl}${filled}${qs ? `?${qs}` : ''}`;
  }

  /** What authenticates a request, and the mark to tell a later refresh apart. */
  async function credentialsFor(auth: 'none' | 'access' | 'refresh'): Promise<{
    headers: Record<string, string>;
    mark: StaleMark;
  }> {
    if (mode === 'cookie') {
      if (auth === 'access' && cookieState && isExpired(cookieState) && !refreshExpired(cookieState)) {
        await refreshOnce({ accessToken: undefined, generation }).catch(() => {});
      }
      return { headers: {}, mark: { accessToken: undefined, generation } };
    }
    if (auth !== 'access') return { headers: {}, mark: { accessToken: undefined, generation } };
    let tokens = await storage.get();
    if (tokens && isExpired(tokens) && !refreshExpired(tokens)) {
      await refreshOnce({ accessToken: tokens.accessToken, generation }).catch(() => {});
      tokens = await storage.get();
    }
    if (!tokens) return { headers: {}, mark: { accessToken: undefined, generation } };
    return {
      headers: { authorization: `Bearer ${tokens.accessToken}` },
      mark: { accessToken: tokens.accessToken, generation },
    };
  }

  async function send(url: string, init: RequestInit): Promise<{ response: Response; text: string }> {
    let response: Response;
    try {
      response = await fetchFn(url, { ...init, credentials: mode === 'cookie' ? 'include' : 'omit' });
    } catch (err) {
      throw networkError(err);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw networkError(err);
    }
    return { response, text };
  }

  /**
   * Calls an operation; throws {@link TenantAuthClientError} unless it succeeded. A `401 invalid_token`
   * on an operation that takes the access token leads to one refresh and one retry.
   */
  async function exchange<K extends OperationId>(
    operation: K,
    input: { params?: object | undefined; query?: object | undefined; body?: unknown },
    retryOn401 = true,
    accept?: (response: Response) => boolean,
  ): Promise<{ data: OperationTypes[K]['response']; receivedAt: number; response: Response }> {
    const spec = OPERATIONS[operation];
    const url = urlOf(spec.path, input.params as Record<string, string> | undefined, input.query);
    const { headers, mark } = await credentialsFor(spec.auth);
    if (mode === 'bearer' && operation === 'logout') {
      const tokens = await storage.get();
      if (tokens) headers.authorization = `Bearer ${tokens.refreshToken}`;
    }
    headers.accept = 'application/json, application/problem+json';
    const init: RequestInit = { method: spec.method, headers };
    if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(input.body);
    }
    const sentAt = clock.now();
    const { response, text } = await send(url, init);
    // The contract's status of success, or any other 2xx a later version might answer.
    if (response.ok || accept?.(response)) {
      const data = text === '' ? undefined : (JSON.parse(text) as unknown);
      return { data: data as OperationTypes[K]['response'], receivedAt: sentAt, response };
    }
    const error = errorOf(response, text, clock.now());
    const mayRefresh =
      retryOn401 &&
      spec.auth === 'access' &&
      error.code === 'invalid_token' &&
      (mode === 'cookie' || mark.accessToken !== undefined);
    if (!mayRefresh) throw error;
    try {
      await refreshOnce(mark);
    } catch (refreshError) {
      if (isTenantAuthClientError(refreshError, 'invalid_token')) throw error;
      throw refreshError;
    }
    return exchange(operation, input, false, accept);
  }

  async function call<K extends OperationId>(
    operation: K,
    input: { params?: object | undefined; query?: object | undefined; body?: unknown } = {},
  ): Promise<OperationTypes[K]['response']> {
    return (await exchange(operation, input)).data;
  }

  // --- the client ----------------------------------------------------------------------------------

  const client: TenantAuthClient = {
    mode,

    async register(body) {
      const { data, receivedAt } = await exchange('register', { body });
      const state = await signedIn(data, receivedAt);
      return { ...state, tenant: data.tenant };
    },
    async login(body) {
      const { data, receivedAt } = await exchange('login', { body });
      return signedIn(data, receivedAt);
    },
    async acceptInvitation(body) {
      const { data, receivedAt } = await exchange('acceptInvitation', { body });
      return signedIn(data, receivedAt);
    },
    refresh: () => refreshOnce(null),
    async restore() {
      const state = await currentState();
      if (state && !refreshExpired(state) && !isDue(state)) {
        const isNew = known?.session.id !== state.session.id;
        adopt(state);
        if (isNew) emit({ type: 'signed_in', state, source: 'local' });
        return state;
      }
      if (mode === 'bearer' && !state) return null;
      try {
        return await refreshOnce(mode === 'bearer' ? await staleMark() : null);
      } catch (err) {
        if (isTenantAuthClientError(err, 'invalid_token')) return null;
        throw err;
      }
    },
    async logout() {
      try {
        if (mode === 'bearer' && !(await storage.get())) return;
        await exchange('logout', {}, false);
      } catch (err) {
        // Already over on the server (401): still forget it here. Anything else is reported.
        if (!isTenantAuthClientError(err, 'invalid_token')) {
          await endSession({ type: 'signed_out', reason: 'logout' });
          throw err;
        }
      }
      await endSession({ type: 'signed_out', reason: 'logout' });
    },
    getSession: currentState,
    async getAccessToken() {
      if (mode === 'cookie') return null;
      const { headers } = await credentialsFor('access');
      return headers.authorization?.slice('Bearer '.length) ?? null;
    },
    async fetch(url, init = {}) {
      const attempt = async () => {
        const { headers, mark } = await credentialsFor('access');
        const merged = new Headers(init.headers);
        for (const [name, value] of Object.entries(headers)) merged.set(name, value);
        let response: Response;
        try {
          response = await fetchFn(url, {
            ...init,
            headers: merged,
            credentials: mode === 'cookie' ? 'include' : 'omit',
          });
        } catch (err) {
          throw networkError(err);
        }
        return { response, mark };
      };
      const first = await attempt();
      if (first.response.status !== 401) return first.response;
      const hasSession = mode === 'cookie' || first.mark.accessToken !== undefined;
      const challenge = first.response.headers.get('www-authenticate') ?? '';
      if (!hasSession || (challenge !== '' && !/invalid_token|^Bearer\s*$/i.test(challenge))) {
        return first.response;
      }
      try {
        await refreshOnce(first.mark);
      } catch (err) {
        if (isTenantAuthClientError(err, 'invalid_token')) return first.response;
        throw err;
      }
      return (await attempt()).response;
    },

    getMyTenant: () => call('getMyTenant'),
    getTenant: (id) => call('getTenant', { params: { id } }),
    listSessions: async () => (await call('listSessions')).sessions,
    async revokeSession(id) {
      await call('revokeSession', { params: { id } });
      const state = await currentState();
      if (state?.session.id.toLowerCase() === id.toLowerCase()) {
        await endSession({ type: 'signed_out', reason: 'session_revoked' });
      }
    },
    async revokeAllSessions(revokeOptions = {}) {
      const exceptCurrent = revokeOptions.exceptCurrent === true;
      const { revoked } = await call('revokeAllSessions', {
        query: exceptCurrent ? { except: 'current' } : {},
      });
      if (!exceptCurrent) await endSession({ type: 'signed_out', reason: 'session_revoked' });
      return revoked;
    },

    listMembers: async () => (await call('listMembers')).members,
    changeMemberRole: (userId, body) => call('changeMemberRole', { params: { userId }, body }),
    removeMember: async (userId) => {
      await call('removeMember', { params: { userId } });
    },
    createInvitation: async (body) => (await call('createInvitation', { body })).invitation,
    listInvitations: async () => (await call('listInvitations')).invitations,
    revokeInvitation: async (id) => {
      await call('revokeInvitation', { params: { id } });
    },

    forgotPassword: async (body) => {
      await call('forgotPassword', { body });
    },
    resetPassword: async (body) => {
      await call('resetPassword', { body });
    },
    changePassword: async (body) => {
      await call('changePassword', { body });
    },
    requestEmailVerification: async () => {
      await call('requestEmailVerification');
    },
    verifyEmail: async (body) => {
      await call('verifyEmail', { body });
    },
    changeEmail: async (body) => {
      await call('changeEmail', { body });
    },
    confirmEmailChange: async (body) => {
      await call('confirmEmailChange', { body });
    },
    async deleteAccount(body) {
      await call('deleteAccount', { body });
      await endSession({ type: 'signed_out', reason: 'account_deleted' });
    },

    listAuditEvents: (query = {}) => call('listAuditEvents', { query }),
    auditEvents(query = {}) {
      return {
        async *[Symbol.asyncIterator]() {
          let before: string | undefined;
          do {
            const page: AuditEventPage = await call('listAuditEvents', {
              query: { ...query, ...(before === undefined ? {} : { before }) },
            });
            yield* page.events;
            before = page.next ?? undefined;
          } while (before !== undefined);
        },
      };
    },

    jwks: () => call('jwks'),
    async health() {
      const isHealthBody = (response: Response) =>
        response.status === 503 &&
        (response.headers.get('content-type') ?? '').startsWith('application/json');
      return (await exchange('health', {}, true, isHealthBody)).data;
    },

    request: (operation, input) => call(operation, input as Parameters<typeof call>[1]),

    onSessionChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      closed = true;
      clearTimer();
      crossTab?.close();
      listeners.clear();
    },
  };
  return client;
}
