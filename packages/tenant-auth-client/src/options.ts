import type { CrossTabOptions } from './cross-tab.js';
import type { ReauthenticationPrompt } from './reauthentication.js';
import type { SessionChange } from './session-change.js';
import { memoryTokenStorage, type TokenStorage } from './tokens.js';

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
  /**
   * The application's own re-authentication dialog, for every call: a call refused with
   * `reauthentication_required` (a *recent* operation, or the application's route behind
   * `requireRecentAuth()` through `client.fetch`) opens it, and runs once more when it resolves `true`.
   * One prompt at a time: calls refused while it is open wait for it, and a call refused after a
   * re-authentication that succeeded since it was sent runs again without asking. Without it, each call
   * throws the refusal (see `client.withReauthentication` for one call).
   *
   * @example
   * const client = createTenantAuthClient({
   *   baseUrl: '/api/v1',
   *   mode: 'cookie',
   *   onReauthenticationRequired: ({ reauthenticate }) => passwordDialog.open(reauthenticate),
   * });
   */
  onReauthenticationRequired?: ReauthenticationPrompt;
}

/** @internal The options checked, with their defaults filled in. */
export interface ResolvedOptions {
  baseUrl: string;
  mode: 'cookie' | 'bearer';
  storage: TokenStorage;
  fetch: FetchLike;
  clock: ClientClock;
  timers: ClientTimers;
  autoRefresh: boolean;
  marginMs: number;
  /** `undefined`: the default of the platform (on in a browser). */
  crossTab: boolean | CrossTabOptions | undefined;
}

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

/** @internal Checks the options (a bad one throws a `TypeError` at once) and fills in the defaults. */
export function resolveOptions(options: TenantAuthClientOptions): ResolvedOptions {
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
  const prompt = options.onReauthenticationRequired;
  if (prompt !== undefined && typeof prompt !== 'function') {
    throw configurationError('onReauthenticationRequired must be a function that resolves true or false');
  }
  const margin = options.refreshMarginSeconds ?? 30;
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 0) {
    throw configurationError('refreshMarginSeconds must be a number >= 0');
  }
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    mode,
    storage: options.storage ?? memoryTokenStorage(),
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    clock: options.clock ?? { now: () => Date.now() },
    timers: options.timers ?? defaultTimers(),
    autoRefresh: options.autoRefresh ?? true,
    marginMs: margin * 1000,
    crossTab: options.crossTab,
  };
}
