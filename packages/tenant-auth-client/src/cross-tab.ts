import type { SessionState } from './tokens.js';

/**
 * The part of the Web Locks API (`navigator.locks`) the client uses: an exclusive lock by name, held
 * while `callback` runs.
 *
 * @example
 * const locks: LockManagerLike = navigator.locks;
 */
export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

/**
 * The part of a `BroadcastChannel` the client uses.
 *
 * @example
 * const channel: BroadcastChannelLike = new BroadcastChannel('tenant-auth-client');
 */
export interface BroadcastChannelLike {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
}

/**
 * How clients in several tabs (or workers) of one origin coordinate (the `crossTab` option). By default,
 * in a browser: `navigator.locks` and a `BroadcastChannel` named `tenant-auth-client`. Tests pass their
 * own; `null` turns either off.
 *
 * @example
 * const crossTab: CrossTabOptions = { name: 'acme-auth' };
 */
export interface CrossTabOptions {
  /** Name of the channel and prefix of the lock names. Default `tenant-auth-client`. */
  name?: string;
  /** Default: `navigator.locks` when the platform has it. */
  locks?: LockManagerLike | null;
  /** Default: a `BroadcastChannel` of `name` when the platform has it. */
  channel?: BroadcastChannelLike | null;
}

/**
 * What tabs tell each other. Never a token: only when a session changed, and what the client may know
 * of it anyway ({@link SessionState}). `key` names the session the message is about (`cookie` in cookie
 * mode, whose cookies every tab shares; the session id in bearer mode).
 *
 * @example
 * const message: CrossTabMessage = { v: 1, from: 'tab-1', key: 'cookie', type: 'revoked' };
 */
export type CrossTabMessage =
  | { v: 1; from: string; key: string; type: 'refreshing' }
  | { v: 1; from: string; key: string; type: 'refreshed' | 'signed_in'; state: SessionState }
  | { v: 1; from: string; key: string; type: 'signed_out'; reason: string }
  | { v: 1; from: string; key: string; type: 'revoked' };

/** A message as a client posts it (`v` and `from` are added). */
type Outgoing = CrossTabMessage extends infer M ? (M extends unknown ? Omit<M, 'v' | 'from'> : never) : never;

/** @internal The coordination of one client with the others of its origin. */
export interface CrossTab {
  readonly locks: LockManagerLike | null;
  post(message: Outgoing): void;
  close(): void;
}

interface PlatformGlobals {
  navigator?: { locks?: LockManagerLike };
  BroadcastChannel?: new (name: string) => BroadcastChannelLike & { unref?: () => void };
  document?: unknown;
}

/** Whether this runs in a browser document or worker: cross-tab coordination is on by default there. */
function inBrowser(): boolean {
  const g = globalThis as unknown as PlatformGlobals & { WorkerGlobalScope?: unknown };
  return g.document !== undefined || g.WorkerGlobalScope !== undefined;
}

/** An id of this client among the tabs, to ignore its own messages. */
function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * @internal The coordination the `crossTab` option asks for (`undefined`: on in a browser, off elsewhere),
 * or `null` when it is off: the channel opened and the lock manager found, as the options say.
 */
export function openCrossTab(
  option: boolean | CrossTabOptions | undefined,
  onMessage: (message: CrossTabMessage) => void,
): CrossTab | null {
  const on = option ?? inBrowser();
  if (on === false) return null;
  const options = on === true ? {} : on;
  const instanceId = randomId();
  const g = globalThis as unknown as PlatformGlobals;
  const name = options.name ?? 'tenant-auth-client';
  const nativeLocks = g.navigator?.locks;
  const locks =
    options.locks !== undefined
      ? options.locks
      : nativeLocks
        ? { request: <T>(lock: string, callback: () => Promise<T>) => nativeLocks.request(lock, callback) }
        : null;
  let channel: BroadcastChannelLike | null = null;
  if (options.channel !== undefined) channel = options.channel;
  else if (typeof g.BroadcastChannel === 'function') {
    const native = new g.BroadcastChannel(name);
    // In Node, an open channel would keep the process alive.
    native.unref?.();
    channel = native;
  }
  if (channel) {
    channel.onmessage = (event) => {
      const message = event.data as Partial<CrossTabMessage> | null;
      if (message?.v !== 1 || message.from === instanceId || typeof message.key !== 'string') return;
      onMessage(message as CrossTabMessage);
    };
  }
  return {
    locks: locks ? { request: (lock, callback) => locks.request(`${name}:${lock}`, callback) } : null,
    post(message) {
      try {
        channel?.postMessage({ ...message, v: 1, from: instanceId });
      } catch {
        // A closed channel: the other tabs learn it on their next refresh.
      }
    },
    close() {
      if (channel) {
        channel.onmessage = null;
        channel.close();
      }
    },
  };
}

/** How long a tab waits for another that announced a refresh before it refreshes itself. */
const PEER_REFRESH_WAIT_MS = 5000;

/**
 * @internal A refresh another tab announced (`refreshing`) and has not reported yet. A tab waits for it
 * before refreshing itself: without Web Locks nothing else orders the two, and with them the lock may be
 * let go before the other tab's result reaches this one (a lock and a channel message are not ordered).
 */
export interface PeerRefresh {
  /** Another tab announced a refresh of this session. */
  announced(): void;
  /** Another tab reported a change of this session: whoever waits goes on. */
  settled(): void;
  /** Resolves when the announced refresh settled, or after {@link PEER_REFRESH_WAIT_MS}; at once if none. */
  wait(): Promise<void>;
}

/** @internal Tracks the refresh another tab announced. */
export function peerRefresh(
  clock: { now(): number },
  timers: { setTimeout(callback: () => void, ms: number): unknown; clearTimeout(handle: unknown): void },
): PeerRefresh {
  let until = 0;
  let waiters: (() => void)[] = [];
  return {
    announced() {
      until = clock.now() + PEER_REFRESH_WAIT_MS;
    },
    settled() {
      const settledWaiters = waiters;
      waiters = [];
      until = 0;
      for (const resolve of settledWaiters) resolve();
    },
    wait() {
      const remaining = until - clock.now();
      if (remaining <= 0) return Promise.resolve();
      return new Promise((resolve) => {
        const handle = timers.setTimeout(done, remaining);
        function done() {
          timers.clearTimeout(handle);
          waiters = waiters.filter((w) => w !== done);
          resolve();
        }
        waiters.push(done);
      });
    },
  };
}
