import type { OperationTypes, TokenResponse } from './contract.generated.js';
import {
  type CrossTab,
  type CrossTabMessage,
  openCrossTab,
  type PeerRefresh,
  peerRefresh,
} from './cross-tab.js';
import { isTenantAuthClientError, notSignedIn } from './errors.js';
import type { ClientClock, ResolvedOptions } from './options.js';
import { refreshQueue } from './refresh-queue.js';
import { type RefreshTimer, refreshTimer } from './refresh-timer.js';
import type { SessionListeners, SignOutReason } from './session-change.js';
import {
  isTokenResponse,
  type SessionState,
  stateOf,
  type TokenStorage,
  tokensOf,
  withoutTokens,
} from './tokens.js';
import type { Transport } from './transport.js';

/** A token that expires within this is treated as expired (requests take time). */
const EXPIRY_SLACK_MS = 1000;

/** @internal What a caller held when it decided that a refresh was needed. */
export interface StaleMark {
  accessToken: string | undefined;
  generation: number;
}

/** @internal The headers that authenticate a request, and the mark to tell a later refresh apart. */
export interface Credentials {
  headers: Record<string, string>;
  mark: StaleMark;
}

/** @internal How a session ends on this side. */
export type SessionEnd = { type: 'signed_out'; reason: SignOutReason } | { type: 'revoked' };

/**
 * @internal The session of a client and its refresh: the state machine behind every method. It holds
 * the session (cookie mode: what the client knows; bearer mode: the storage), refreshes it silently
 * before the access token expires, single-flight in this page and one tab at a time across tabs, and
 * ends it when the server refuses a refresh (`revoked`, as after a replayed refresh token).
 */
export interface Session {
  /** The session as the client knows it, or `null`. */
  current(): Promise<SessionState | null>;
  /** The headers for a request that takes `auth`; an expired access token is refreshed first. */
  credentials(auth: 'none' | 'access' | 'refresh'): Promise<Credentials>;
  /** One refresh for everyone who asks while it runs; skipped when one happened since `stale`. */
  refresh(stale: StaleMark | null): Promise<SessionState>;
  /** Picks up a session that exists already, or `null`. */
  restore(): Promise<SessionState | null>;
  /** Whether a success body has what the client reads of a token response in this mode. */
  isTokenResponse(data: unknown): data is TokenResponse;
  /** Records the token response of a sign-in. */
  signedIn(body: TokenResponse, receivedAt: number): Promise<SessionState>;
  /** Runs `renew` (a re-authentication: no retry after a 401) in the refresh queue and lock; records its tokens. */
  renew(renew: () => Promise<{ data: TokenResponse; receivedAt: number }>): Promise<SessionState>;
  /** Forgets the session here (and in a shared storage: only `presentedRefreshToken`'s) and tells the other tabs. */
  end(change: SessionEnd, presentedRefreshToken?: string): Promise<void>;
  close(): void;
}

/**
 * @internal The {@link Session} of a client that calls the server through `transport` and reports to
 * `listeners`. A class rather than one closure: each step of the state machine is a method of its own.
 */
export class ClientSession implements Session {
  private readonly mode: 'cookie' | 'bearer';
  private readonly storage: TokenStorage;
  private readonly clock: ClientClock;
  private readonly marginMs: number;
  /** Cookie mode: what the client knows of the session (nothing after a reload, until restored). */
  private cookieState: SessionState | null = null;
  /** The session last known, in either mode: for events, cross-tab keys and the timer. */
  private known: SessionState | null = null;
  /** Counts the refreshes seen (local or another tab's): a request that failed before one may retry. */
  private generation = 0;
  private inflight: Promise<SessionState> | null = null;
  /** Runs a refresh or re-authentication after those before it, under the session's Web Lock (refresh-queue.ts). */
  private readonly exclusively: <T>(run: () => Promise<T>) => Promise<T>;
  /** A re-authentication runs: no refresh before a request (queued behind it, it would wait forever). */
  private renewHeld = false;
  private closed = false;
  private readonly timer: RefreshTimer;
  private readonly peer: PeerRefresh;
  private readonly crossTab: CrossTab | null;

  constructor(
    options: ResolvedOptions,
    private readonly transport: Transport,
    private readonly listeners: SessionListeners,
  ) {
    this.mode = options.mode;
    this.storage = options.storage;
    this.clock = options.clock;
    this.marginMs = options.marginMs;
    this.timer = refreshTimer(
      options.clock,
      options.timers,
      options.autoRefresh,
      () => void this.refreshIfDue(),
    );
    this.peer = peerRefresh(options.clock, options.timers);
    this.crossTab = openCrossTab(options.crossTab, (message) => {
      void this.onPeer(message);
    });
    this.exclusively = refreshQueue(this.crossTab?.locks ?? null, async () =>
      this.mode === 'cookie' ? 'cookie' : ((await this.storage.get())?.session.id ?? 'none'),
    );
  }

  // --- time ------------------------------------------------------------------------------------------

  private keyOf(state: SessionState | null): string {
    return this.mode === 'cookie' ? 'cookie' : (state?.session.id ?? '');
  }
  private marginOf(state: SessionState): number {
    return Math.min(this.marginMs, Math.max(0, (state.accessTokenExpiresAt - state.receivedAt) / 4));
  }
  private isDue(state: SessionState): boolean {
    return this.clock.now() >= state.accessTokenExpiresAt - this.marginOf(state);
  }
  private isExpired(state: SessionState): boolean {
    return this.clock.now() >= state.accessTokenExpiresAt - EXPIRY_SLACK_MS;
  }
  private mayRefreshFirst(state: SessionState): boolean {
    return !this.renewHeld && this.isExpired(state) && !this.refreshExpired(state);
  }
  private refreshExpired(state: SessionState): boolean {
    return this.clock.now() >= state.refreshTokenExpiresAt;
  }

  async current(): Promise<SessionState | null> {
    if (this.mode === 'cookie') return this.cookieState;
    const tokens = await this.storage.get();
    return tokens ? withoutTokens(tokens) : null;
  }

  // --- the refresh timer -----------------------------------------------------------------------------

  /** Plans the silent refresh of `state`: shortly before its access token expires, or in `delayMs`. */
  private schedule(state: SessionState | null, delayMs?: number) {
    if (!state) this.timer.plan(null);
    else {
      const at =
        delayMs === undefined
          ? state.accessTokenExpiresAt - this.marginOf(state)
          : this.clock.now() + delayMs;
      this.timer.plan(at);
    }
  }

  private async refreshIfDue(): Promise<void> {
    if (this.closed) return;
    const state = await this.current();
    if (!state) return;
    if (!this.isDue(state)) {
      this.schedule(state);
      return;
    }
    try {
      await this.refresh(await this.staleMark());
    } catch (err) {
      // Refused: the session is over (reported by refresh). Anything else (offline, 429, 503): retry.
      if (isTenantAuthClientError(err, 'invalid_token')) return;
      const now = await this.current();
      if (!now || this.refreshExpired(now)) return;
      const retryAfter = isTenantAuthClientError(err) ? (err.retryAfterSeconds ?? 10) : 10;
      this.schedule(now, Math.max(1, retryAfter) * 1000);
    }
  }

  // --- session changes, here and from other tabs -----------------------------------------------------

  /** Records a new session state (or none) and reschedules. */
  private adopt(state: SessionState | null) {
    this.known = state;
    if (this.mode === 'cookie') this.cookieState = state;
    this.schedule(state);
  }

  /** Records new tokens (a sign-in or a refresh) and tells this page's listeners and the other tabs. */
  private async received(body: TokenResponse, receivedAt: number, type: 'signed_in' | 'refreshed') {
    const state = stateOf(body, receivedAt);
    if (this.mode === 'bearer') await this.storage.set(tokensOf(body, receivedAt));
    this.generation += 1;
    this.adopt(state);
    this.listeners.emit({ type, state, source: 'local' });
    this.crossTab?.post({ type, key: this.keyOf(state), state });
    return state;
  }

  signedIn(body: TokenResponse, receivedAt: number): Promise<SessionState> {
    return this.received(body, receivedAt, 'signed_in');
  }

  async renew(renew: () => Promise<{ data: TokenResponse; receivedAt: number }>): Promise<SessionState> {
    await this.credentials('access'); // an expired token first: inside, its refresh would wait for this
    return this.exclusively(async () => {
      this.renewHeld = true;
      const before = this.known?.session.id;
      const { data, receivedAt } = await renew().finally(() => {
        this.renewHeld = false;
      });
      return this.received(data, receivedAt, before === data.session.id ? 'refreshed' : 'signed_in');
    });
  }

  async end(change: SessionEnd, presentedRefreshToken?: string): Promise<void> {
    const before = this.known ?? (await this.current());
    if (this.mode === 'bearer') {
      // Only the tokens that failed: another tab may have stored newer ones meanwhile (no Web Locks).
      const stored = await this.storage.get();
      if (stored && (presentedRefreshToken === undefined || stored.refreshToken === presentedRefreshToken)) {
        await this.storage.set(null);
      }
    }
    this.generation += 1;
    this.adopt(null);
    if (!before) return;
    this.listeners.emit({ ...change, source: 'local' });
    const key = this.keyOf(before);
    if (change.type === 'revoked') this.crossTab?.post({ type: 'revoked', key });
    else this.crossTab?.post({ type: 'signed_out', key, reason: change.reason });
  }

  /** Whether a message of another tab is about this client's session. */
  private async concerns(message: CrossTabMessage): Promise<boolean> {
    // Cookie mode: every tab shares the cookies, so every message is about this session.
    if (this.mode === 'cookie') return true;
    // Bearer mode: only tabs sharing the storage share a session (tabs with a memory storage each have
    // their own). A session this client knows, or a new one that its storage now holds.
    const mine = this.keyOf(this.known);
    if (mine !== '' && message.key === mine) return true;
    if (message.type !== 'signed_in' && message.type !== 'refreshed') return false;
    return (await this.storage.get())?.session.id === message.key;
  }

  private async onPeer(message: CrossTabMessage) {
    if (this.closed || !(await this.concerns(message))) return;
    if (message.type === 'refreshing') {
      this.peer.announced();
      return;
    }
    this.peer.settled();
    this.generation += 1;
    const had = this.known !== null;
    if (message.type === 'refreshed' || message.type === 'signed_in') {
      const isNew = this.known?.session.id !== message.state.session.id;
      this.adopt(message.state);
      const type = isNew ? 'signed_in' : message.type;
      this.listeners.emit({ type, state: message.state, source: 'other_tab' });
      return;
    }
    this.adopt(null);
    if (!had) return;
    if (message.type === 'revoked') this.listeners.emit({ type: 'revoked', source: 'other_tab' });
    else if (message.type === 'signed_out') {
      this.listeners.emit({
        type: 'signed_out',
        reason: message.reason as SignOutReason,
        source: 'other_tab',
      });
    }
  }

  // --- refreshing ------------------------------------------------------------------------------------

  private async staleMark(): Promise<StaleMark> {
    const tokens = this.mode === 'bearer' ? await this.storage.get() : null;
    return { accessToken: tokens?.accessToken, generation: this.generation };
  }

  /** The session another tab (or an earlier call) refreshed since `stale`, if any. */
  private async refreshedSince(stale: StaleMark): Promise<SessionState | null> {
    if (this.mode === 'bearer') {
      const tokens = await this.storage.get();
      if (tokens && tokens.accessToken !== stale.accessToken && !this.isDue(tokens)) {
        const state = withoutTokens(tokens);
        if (this.known?.accessTokenExpiresAt !== state.accessTokenExpiresAt) this.adopt(state);
        return state;
      }
      return null;
    }
    const { cookieState } = this;
    return this.generation !== stale.generation && cookieState && !this.isDue(cookieState)
      ? cookieState
      : null;
  }

  /**
   * One refresh for everyone who asks while it runs (single-flight in this page), one tab at a time
   * (Web Locks), skipped when another tab refreshed since `stale` (`null`: refresh in any case).
   */
  refresh(stale: StaleMark | null): Promise<SessionState> {
    if (this.inflight) return this.inflight;
    const run = async (): Promise<SessionState> => {
      const already = stale && (await this.refreshedSince(stale));
      if (already) return already;
      await this.peer.wait();
      const meanwhile = stale && (await this.refreshedSince(stale));
      if (meanwhile) return meanwhile;
      return this.performRefresh();
    };
    this.inflight = this.exclusively(run).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async performRefresh(): Promise<SessionState> {
    let presented: string | undefined;
    let body: OperationTypes['refresh']['body'];
    if (this.mode === 'bearer') {
      const tokens = await this.storage.get();
      if (!tokens) throw notSignedIn();
      if (this.refreshExpired(tokens)) {
        await this.end({ type: 'signed_out', reason: 'expired' }, tokens.refreshToken);
        throw notSignedIn();
      }
      presented = tokens.refreshToken;
      body = { refreshToken: tokens.refreshToken };
    }
    const before = this.known;
    this.crossTab?.post({ type: 'refreshing', key: this.keyOf(before) });
    let answer: { data: TokenResponse; receivedAt: number };
    try {
      answer = await this.transport.call('refresh', { body }, { expect: this.isTokenResponse });
    } catch (err) {
      if (isTenantAuthClientError(err, 'invalid_token')) {
        const expired = before !== null && this.refreshExpired(before);
        await this.end(expired ? { type: 'signed_out', reason: 'expired' } : { type: 'revoked' }, presented);
      }
      throw err;
    }
    const isNew = before?.session.id !== answer.data.session.id;
    return this.received(answer.data, answer.receivedAt, isNew ? 'signed_in' : 'refreshed');
  }

  // --- what the other modules ask --------------------------------------------------------------------

  async credentials(auth: 'none' | 'access' | 'refresh'): Promise<Credentials> {
    const none = () => ({ headers: {}, mark: { accessToken: undefined, generation: this.generation } });
    if (this.mode === 'cookie') {
      const state = this.cookieState;
      if (auth === 'access' && state && this.mayRefreshFirst(state)) {
        await this.refresh({ accessToken: undefined, generation: this.generation }).catch(() => {});
      }
      return none();
    }
    if (auth === 'none') return none();
    let tokens = await this.storage.get();
    if (auth === 'refresh') {
      // Bearer mode: the refresh token names the session to end (logout).
      if (!tokens) return none();
      return { ...none(), headers: { authorization: `Bearer ${tokens.refreshToken}` } };
    }
    if (tokens && this.mayRefreshFirst(tokens)) {
      await this.refresh({ accessToken: tokens.accessToken, generation: this.generation }).catch(() => {});
      tokens = await this.storage.get();
    }
    if (!tokens) return none();
    return {
      headers: { authorization: `Bearer ${tokens.accessToken}` },
      mark: { accessToken: tokens.accessToken, generation: this.generation },
    };
  }

  async restore(): Promise<SessionState | null> {
    const state = await this.current();
    if (state && !this.refreshExpired(state) && !this.isDue(state)) {
      const isNew = this.known?.session.id !== state.session.id;
      this.adopt(state);
      if (isNew) this.listeners.emit({ type: 'signed_in', state, source: 'local' });
      return state;
    }
    if (this.mode === 'bearer' && !state) return null;
    try {
      return await this.refresh(this.mode === 'bearer' ? await this.staleMark() : null);
    } catch (err) {
      if (isTenantAuthClientError(err, 'invalid_token')) return null;
      throw err;
    }
  }

  /** Bound: it is passed on as the `expect` of a call. */
  readonly isTokenResponse = (data: unknown): data is TokenResponse => isTokenResponse(data, this.mode);

  close(): void {
    this.closed = true;
    this.timer.close();
    this.crossTab?.close();
  }
}
