import type { TokenResponse, TokenSession, User } from './contract.generated.js';

/**
 * What the client knows of the signed-in session, in both modes: never a token. Times are milliseconds
 * since the epoch, on the client's clock (computed from the server's lifetimes when the answer came, so
 * a skewed clock does not matter).
 *
 * @example
 * const state: SessionState | null = await client.getSession();
 * if (state) greet(state.user.email);
 */
export interface SessionState {
  user: User;
  session: TokenSession;
  /** When the access token expires. */
  accessTokenExpiresAt: number;
  /** When the refresh token expires: the session ends then unless it is refreshed before. */
  refreshTokenExpiresAt: number;
  /** When the tokens were received. */
  receivedAt: number;
}

/**
 * The tokens of bearer mode, as a {@link TokenStorage} keeps them: the {@link SessionState} plus the two
 * JWTs.
 *
 * @example
 * const tokens: Tokens | null = await storage.get();
 */
export interface Tokens extends SessionState {
  accessToken: string;
  refreshToken: string;
}

/**
 * Where bearer mode keeps its tokens. The default, {@link memoryTokenStorage}, keeps them in this page or
 * process only. An application that wants a session to survive a reload provides its own (IndexedDB,
 * a native keychain, ...): tabs that share a storage share the session, and the client coordinates their
 * refreshes so that none presents a refresh token another has already rotated.
 *
 * @example
 * const storage: TokenStorage = {
 *   async get() {
 *     const text = localStorage.getItem('auth');
 *     return text ? (JSON.parse(text) as Tokens) : null;
 *   },
 *   async set(tokens) {
 *     if (tokens) localStorage.setItem('auth', JSON.stringify(tokens));
 *     else localStorage.removeItem('auth');
 *   },
 * };
 */
export interface TokenStorage {
  get(): Promise<Tokens | null>;
  set(tokens: Tokens | null): Promise<void> | void;
}

/**
 * A {@link TokenStorage} in memory: tokens live as long as the page or process, and no other tab sees
 * them. The default of bearer mode.
 *
 * @example
 * const client = createTenantAuthClient({ baseUrl, mode: 'bearer', storage: memoryTokenStorage() });
 */
export function memoryTokenStorage(): TokenStorage {
  let current: Tokens | null = null;
  return {
    get: async () => current,
    set: (tokens) => {
      current = tokens;
    },
  };
}

/** @internal The session of a token response received at `receivedAt` (client clock): its lifetimes made times. */
export function stateOf(body: TokenResponse, receivedAt: number): SessionState {
  return {
    user: body.user,
    session: body.session,
    accessTokenExpiresAt: receivedAt + body.expiresIn * 1000,
    refreshTokenExpiresAt: receivedAt + body.refreshExpiresIn * 1000,
    receivedAt,
  };
}

/** @internal What bearer mode stores of a token response. */
export function tokensOf(body: TokenResponse, receivedAt: number): Tokens {
  return { ...stateOf(body, receivedAt), accessToken: body.accessToken, refreshToken: body.refreshToken };
}

/** @internal The session of stored tokens, without the tokens. */
export function withoutTokens(tokens: Tokens): SessionState {
  return {
    user: tokens.user,
    session: tokens.session,
    accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
    receivedAt: tokens.receivedAt,
  };
}

/**
 * @internal Whether a success body has what the client reads of a token response: the user, the
 * session's id, two lifetimes it can turn into times, and in bearer mode the two tokens it stores. A
 * body without them would leave a session that cannot be refreshed (or a timer that fires at once).
 */
export function isTokenResponse(data: unknown, mode: 'cookie' | 'bearer'): data is TokenResponse {
  const body = data as { [K in keyof TokenResponse]?: unknown } | null | undefined;
  const lifetime = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
  const token = (t: unknown) => typeof t === 'string' && t !== '';
  return (
    typeof body?.user === 'object' &&
    body.user !== null &&
    typeof (body.session as { id?: unknown } | null | undefined)?.id === 'string' &&
    lifetime(body.expiresIn) &&
    lifetime(body.refreshExpiresIn) &&
    (mode === 'cookie' || (token(body.accessToken) && token(body.refreshToken)))
  );
}
