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
  Me,
  Member,
  OperationId,
  OperationTypes,
  RegisterRequest,
  ResetPasswordRequest,
  SecurityPolicy,
  Session,
  SetSecurityPolicyRequest,
  Tenant,
  VerifyEmailRequest,
} from './contract.generated.js';
import { isTenantAuthClientError } from './errors.js';
import { type OperationMethods, operationMethods } from './operations.js';
import { resolveOptions, type TenantAuthClientOptions } from './options.js';
import { type PasskeysClient, passkeysOf } from './passkeys.js';
import { createRequests } from './requests.js';
import { type SecondFactorMethods, secondFactorMethods } from './second-factor.js';
import { ClientSession } from './session.js';
import { type SessionChange, sessionListeners } from './session-change.js';
import { challengeOf, type SignInResult } from './sign-in.js';
import { type SsoClient, ssoMethods } from './sso.js';
import type { SessionState } from './tokens.js';
import { createTransport } from './transport.js';

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
 * A client of the tenant-auth HTTP API (API.md, 1.0 to 1.2): every route as a typed method named after
 * its operation, with silent refresh. Create it with {@link createTenantAuthClient}.
 *
 * @example
 * const client = createTenantAuthClient({ baseUrl: '/api/v1', mode: 'cookie' });
 * await client.restore();
 * const sessions = await client.listSessions();
 */
export interface TenantAuthClient extends SecondFactorMethods {
  readonly mode: 'cookie' | 'bearer';
  /** Passkeys: registration, passwordless sign-in, the second factor, re-authentication (API 1.2). */
  readonly passkeys: PasskeysClient;

  /** `POST /auth/register`: creates a tenant and its owner, and signs in. */
  register(body: RegisterRequest): Promise<RegisterResult>;
  /**
   * `POST /auth/login`: signed in, or the second-factor step before it (`mfa_required`,
   * `mfa_setup_required`) as a result, never as an exception.
   */
  login(body: LoginRequest): Promise<SignInResult>;
  /**
   * `POST /auth/invitations/accept`: creates the account in the inviting tenant, and signs in; into a
   * tenant that requires a second factor, the result is the `mfa_setup_required` step instead.
   */
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
  /** `GET /users/me`: the caller, with their second factors (`mfa`). */
  getMe(): Promise<Me>;
  /** `GET /tenants/me/security` (admin): the tenant's security policy. */
  getSecurityPolicy(): Promise<SecurityPolicy>;
  /**
   * `PATCH /tenants/me/security` (*recent*, owner). Turning `requireMfa` on revokes every session of
   * the tenant without a second factor (the caller's own has one: they need a factor to turn it on).
   */
  setSecurityPolicy(body: SetSecurityPolicyRequest): Promise<SecurityPolicy>;
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

  /** Single sign-on (API 1.2): `sso.start({ email, returnTo })`, then navigate to the answered URL. */
  readonly sso: SsoClient;

  /** Subscribes to {@link SessionChange}s; returns the unsubscribe function. */
  onSessionChange(listener: (change: SessionChange) => void): () => void;
  /** Stops the refresh timer and closes the cross-tab channel. */
  close(): void;
}

/** Fails to compile unless the methods built from the operation table have the signatures of the interface. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const methodsMatchTheInterface: {
  [K in keyof OperationMethods]: Same<OperationMethods[K], TenantAuthClient[K]>;
} = {
  getMyTenant: true,
  getTenant: true,
  listSessions: true,
  revokeSession: true,
  listMembers: true,
  changeMemberRole: true,
  removeMember: true,
  createInvitation: true,
  listInvitations: true,
  revokeInvitation: true,
  forgotPassword: true,
  resetPassword: true,
  changePassword: true,
  requestEmailVerification: true,
  verifyEmail: true,
  changeEmail: true,
  confirmEmailChange: true,
  deleteAccount: true,
  listAuditEvents: true,
  jwks: true,
  getMe: true,
  getSecurityPolicy: true,
  setSecurityPolicy: true,
};
void methodsMatchTheInterface;

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
  const resolved = resolveOptions(options);
  const { mode } = resolved;
  const listeners = sessionListeners(options.onSessionChange);
  const transport = createTransport(resolved);
  const session = new ClientSession(resolved, transport, listeners);
  const requests = createRequests(mode, transport, session);
  const call: Parameters<typeof operationMethods>[0] = async (operation, input) =>
    (await requests.exchange(operation, input)).data;
  const plain = operationMethods(call);
  const signIn = async <K extends 'register' | 'login' | 'acceptInvitation'>(
    operation: K,
    body: OperationTypes[K]['body'],
  ) => {
    const { data, receivedAt } = await requests.exchange(
      operation,
      { body },
      { expect: session.isTokenResponse },
    );
    return { data, state: await session.signedIn(data, receivedAt) };
  };
  /** A sign-in whose answer may be the second-factor step: a result to switch on. */
  const signInOrChallenge = async (operation: 'login' | 'acceptInvitation', body: object) => {
    try {
      const { state } = await signIn(operation, body as OperationTypes[typeof operation]['body']);
      return { ...state, type: 'signed_in' } as const;
    } catch (err) {
      const challenge = challengeOf(err, resolved.clock.now());
      if (challenge) return challenge;
      throw err;
    }
  };

  return {
    ...plain,
    ...secondFactorMethods(requests, session),
    mode,
    passkeys: passkeysOf(requests, session),
    sso: ssoMethods(call),

    async register(body) {
      const { data, state } = await signIn('register', body);
      return { ...state, tenant: data.tenant };
    },
    login: (body) => signInOrChallenge('login', body),
    acceptInvitation: (body) => signInOrChallenge('acceptInvitation', body),
    refresh: () => session.refresh(null),
    restore: () => session.restore(),
    async logout() {
      try {
        if (mode === 'bearer' && !(await session.current())) return;
        await requests.exchange('logout', {}, { retry: false });
      } catch (err) {
        // Already over on the server (401): still forget it here. Anything else is reported.
        if (!isTenantAuthClientError(err, 'invalid_token')) {
          await session.end({ type: 'signed_out', reason: 'logout' });
          throw err;
        }
      }
      await session.end({ type: 'signed_out', reason: 'logout' });
    },
    getSession: () => session.current(),
    async getAccessToken() {
      if (mode === 'cookie') return null;
      const { headers } = await session.credentials('access');
      return headers.authorization?.slice('Bearer '.length) ?? null;
    },
    fetch: (url, init) => requests.fetch(url, init),

    async revokeSession(id) {
      await plain.revokeSession(id);
      const state = await session.current();
      if (state?.session.id.toLowerCase() === id.toLowerCase()) {
        await session.end({ type: 'signed_out', reason: 'session_revoked' });
      }
    },
    async revokeAllSessions(revokeOptions = {}) {
      const exceptCurrent = revokeOptions.exceptCurrent === true;
      const { revoked } = await call('revokeAllSessions', {
        query: exceptCurrent ? { except: 'current' } : {},
      });
      if (!exceptCurrent) await session.end({ type: 'signed_out', reason: 'session_revoked' });
      return revoked;
    },
    async deleteAccount(body) {
      await plain.deleteAccount(body);
      await session.end({ type: 'signed_out', reason: 'account_deleted' });
    },
    auditEvents: (query = {}) => ({
      async *[Symbol.asyncIterator]() {
        let before: string | undefined;
        do {
          const page = await plain.listAuditEvents({ ...query, ...(before === undefined ? {} : { before }) });
          yield* page.events;
          before = page.next ?? undefined;
        } while (before !== undefined);
      },
    }),
    async health() {
      const isHealthBody = (response: Response) =>
        response.status === 503 &&
        (response.headers.get('content-type') ?? '').startsWith('application/json');
      return (await requests.exchange('health', {}, { accept: isHealthBody })).data;
    },
    request: (operation, input) => call(operation, input),

    onSessionChange: (listener) => listeners.add(listener),
    close() {
      session.close();
      listeners.clear();
    },
  };
}
