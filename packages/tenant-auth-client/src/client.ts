import type {
  AcceptInvitationRequest,
  AddDomainRequest,
  ApiKey,
  AuditEvent,
  AuditEventPage,
  ChangeEmailRequest,
  ChangeMemberRoleRequest,
  ChangePasswordRequest,
  ConfigureSsoRequest,
  ConfirmEmailChangeRequest,
  CreateApiKeyRequest,
  CreatedApiKey,
  CreatedScimToken,
  CreatedWebhook,
  CreateInvitationRequest,
  CreateWebhookRequest,
  DeleteAccountRequest,
  Domain,
  ForgotPasswordRequest,
  Health,
  Invitation,
  Jwks,
  ListAuditEventsQuery,
  ListWebhookDeliveriesQuery,
  LoginRequest,
  Me,
  Member,
  OperationId,
  OperationTypes,
  RegisterRequest,
  ResetPasswordRequest,
  ScimGroupRole,
  ScimSettings,
  SecurityPolicy,
  Session,
  SetSecurityPolicyRequest,
  SsoConnection,
  Tenant,
  UpdateWebhookRequest,
  VerifyEmailRequest,
  Webhook,
  WebhookDeliveryPage,
  WebhookTest,
} from './contract.generated.js';
import { isTenantAuthClientError, notSignedIn } from './errors.js';
import { type OperationMethods, operationMethods } from './operations.js';
import { resolveOptions, type TenantAuthClientOptions } from './options.js';
import { type PasskeysClient, passkeysOf } from './passkeys.js';
import { reauthenticationGate } from './reauthentication.js';
import { createRequests } from './requests.js';
import { type SecondFactorMethods, secondFactorMethods } from './second-factor.js';
import { ClientSession } from './session.js';
import { type SessionChange, sessionListeners } from './session-change.js';
import { challengeOf, type SignInResult, type SignInStep } from './sign-in.js';
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
 * A client of the tenant-auth HTTP API (docs/http-api.md, 1.0 to 1.2): every route as a typed method named after
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
   * `POST /auth/login`: signs in. When the user must answer (or enrol) a second factor first, it throws a
   * `TenantAuthClientError` with code `mfa_required` (or `mfa_setup_required`) and no session exists:
   * a client that handles second factors calls {@link TenantAuthClient.loginStep} instead.
   */
  login(body: LoginRequest): Promise<SignInResult>;
  /**
   * `POST /auth/login`: signed in, or the second-factor step before it (`mfa_required`,
   * `mfa_setup_required`) as a result, never as an exception (API 1.2).
   *
   * @example
   * const step = await client.loginStep({ email, password });
   * if (step.type === 'mfa_required') await client.verifyMfa({ mfaToken: step.mfaToken, method: 'totp', code });
   */
  loginStep(body: LoginRequest): Promise<SignInStep>;
  /**
   * `POST /auth/invitations/accept`: creates the account in the inviting tenant, and signs in. Into a
   * tenant that requires a second factor, it throws a `TenantAuthClientError` with code
   * `mfa_setup_required`: call {@link TenantAuthClient.acceptInvitationStep} to handle that step.
   */
  acceptInvitation(body: AcceptInvitationRequest): Promise<SignInResult>;
  /**
   * `POST /auth/invitations/accept`: signed in, or, into a tenant that requires a second factor, the
   * `mfa_setup_required` step as a result (API 1.2).
   *
   * @example
   * const step = await client.acceptInvitationStep({ token, password });
   * if (step.type === 'mfa_setup_required') await client.setupTotp({ mfaToken: step.mfaToken });
   */
  acceptInvitationStep(body: AcceptInvitationRequest): Promise<SignInStep>;
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

  /**
   * `GET /tenants/me/api-keys` (admin): the tenant's API keys that are not revoked, oldest first (never
   * a secret).
   *
   * @example
   * for (const key of await client.listApiKeys()) console.log(key.name, key.prefix, key.lastUsedAt);
   */
  listApiKeys(): Promise<ApiKey[]>;
  /**
   * `POST /tenants/me/api-keys` (*recent*, admin): creates an API key with a role at most the caller's.
   * The answer's `secret` is shown this once: hand it to its user, never store or log it.
   *
   * @example
   * const { apiKey, secret } = await client.createApiKey({ name: 'CI', role: 'member', expiresInDays: 90 });
   * showOnce(secret);
   */
  createApiKey(body: CreateApiKeyRequest): Promise<CreatedApiKey>;
  /**
   * `DELETE /tenants/me/api-keys/:id` (admin): the key stops working at once on the server that answers,
   * within 5 seconds on every other.
   *
   * @example
   * await client.revokeApiKey(apiKey.id);
   */
  revokeApiKey(id: string): Promise<void>;

  /**
   * `GET /tenants/me/domains` (admin): the tenant's email domains, oldest first, each with the TXT
   * record that proves it while it is not verified.
   *
   * @example
   * const unverified = (await client.listDomains()).filter((d) => !d.verified);
   */
  listDomains(): Promise<Domain[]>;
  /**
   * `POST /tenants/me/domains` (*recent*, owner): adds a domain; publish its `verification` TXT record,
   * then call {@link TenantAuthClient.verifyDomain}.
   *
   * @example
   * const { verification } = await client.addDomain({ domain: 'example.com' });
   * show(`${verification.name} TXT "${verification.value}"`);
   */
  addDomain(body: AddDomainRequest): Promise<Domain>;
  /**
   * `POST /tenants/me/domains/:name/verify` (*recent*, owner): verified once the TXT record holds the
   * value; `409 domain_not_verified` while it does not, `409 domain_taken` when another tenant verified it.
   *
   * @example
   * const domain = await client.verifyDomain('example.com');
   */
  verifyDomain(name: string): Promise<Domain>;
  /**
   * `DELETE /tenants/me/domains/:name` (*recent*, owner).
   *
   * @example
   * await client.removeDomain('example.com');
   */
  removeDomain(name: string): Promise<void>;
  /**
   * `GET /tenants/me/sso` (admin): the tenant's identity-provider connection, or `null`; never a secret.
   *
   * @example
   * const sso = await client.getSso();
   * if (sso === null) showConnectForm();
   */
  getSso(): Promise<SsoConnection | null>;
  /**
   * `PUT /tenants/me/sso` (*recent*, owner): connects (or replaces) the tenant's identity provider. The
   * client secret is sent, never answered.
   *
   * @example
   * const sso = await client.configureSso({ issuer, clientId, clientSecret, defaultRole: 'member', enforce: false });
   */
  configureSso(body: ConfigureSsoRequest): Promise<SsoConnection>;
  /**
   * `DELETE /tenants/me/sso` (*recent*, owner).
   *
   * @example
   * await client.removeSso();
   */
  removeSso(): Promise<void>;
  /**
   * `GET /tenants/me/webhooks` (admin): the tenant's webhook endpoints, oldest first (never a secret).
   *
   * @example
   * for (const hook of await client.listWebhooks()) console.log(hook.url, hook.enabled, hook.disabledReason);
   */
  listWebhooks(): Promise<Webhook[]>;
  /**
   * `POST /tenants/me/webhooks` (*recent*, admin): creates an endpoint; the answer's `secret`
   * (`whsec_…`) signs its deliveries and is shown this once.
   *
   * @example
   * const { webhook, secret } = await client.createWebhook({ url: 'https://siem.example.com/hooks', events: ['login_failed'] });
   */
  createWebhook(body: CreateWebhookRequest): Promise<CreatedWebhook>;
  /**
   * `PATCH /tenants/me/webhooks/:id` (*recent*, admin): changes an endpoint; `enabled: true` re-enables
   * one the server disabled (only events written after it are delivered).
   *
   * @example
   * const webhook = await client.updateWebhook(id, { enabled: true });
   */
  updateWebhook(id: string, body: UpdateWebhookRequest): Promise<Webhook>;
  /**
   * `DELETE /tenants/me/webhooks/:id` (*recent*, admin): nothing more is delivered to it.
   *
   * @example
   * await client.deleteWebhook(id);
   */
  deleteWebhook(id: string): Promise<void>;
  /**
   * `POST /tenants/me/webhooks/:id/test` (admin): queues a `webhook.test` event for the endpoint.
   *
   * @example
   * const { deliveryId } = await client.testWebhook(id);
   */
  testWebhook(id: string): Promise<WebhookTest>;
  /**
   * `GET /tenants/me/webhooks/:id/deliveries` (admin): the endpoint's deliveries, newest first.
   *
   * @example
   * const { deliveries, next } = await client.listWebhookDeliveries(id, { limit: 20 });
   */
  listWebhookDeliveries(id: string, query?: ListWebhookDeliveriesQuery): Promise<WebhookDeliveryPage>;
  /**
   * `GET /tenants/me/scim` (admin): the tenant's SCIM connection (API 1.3): whether a token exists, the
   * base URL a directory is given, when the token was created and last used, and the group-to-role
   * mapping. Never the token.
   *
   * @example
   * const { enabled, baseUrl, lastUsedAt, groupRoles } = await client.getScim();
   */
  getScim(): Promise<ScimSettings>;
  /**
   * `POST /tenants/me/scim/token` (*recent*, owner): creates the tenant's SCIM token, replacing the
   * previous one, which stops at once. The answer's `token` (`tas_…`) is shown this once: give it to the
   * directory with `baseUrl`, never store or log it.
   *
   * @example
   * const { token, baseUrl } = await client.createScimToken();
   * showOnce(token);
   */
  createScimToken(): Promise<CreatedScimToken>;
  /**
   * `DELETE /tenants/me/scim/token` (*recent*, owner): the directory's requests with it are refused at once.
   *
   * @example
   * await client.revokeScimToken();
   */
  revokeScimToken(): Promise<void>;
  /**
   * `PUT /tenants/me/scim/group-roles` (*recent*, owner): replaces the group-to-role mapping (`group` is a
   * group's `displayName`, exact match); the role of every user the directory manages follows at once.
   * Answers the saved mapping.
   *
   * @example
   * const groupRoles = await client.setScimGroupRoles([{ group: 'Admins', role: 'admin' }]);
   */
  setScimGroupRoles(groupRoles: ScimGroupRole[]): Promise<ScimGroupRole[]>;

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
  listApiKeys: true,
  createApiKey: true,
  revokeApiKey: true,
  listDomains: true,
  addDomain: true,
  verifyDomain: true,
  removeDomain: true,
  getSso: true,
  removeSso: true,
  listWebhooks: true,
  createWebhook: true,
  updateWebhook: true,
  deleteWebhook: true,
  testWebhook: true,
  listWebhookDeliveries: true,
  createScimToken: true,
  getScim: true,
  revokeScimToken: true,
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
  // The gate's `reauthenticate` is the client's own, made below over these requests.
  let reauthenticate: SecondFactorMethods['reauthenticate'] = () => Promise.reject(notSignedIn());
  const gate = reauthenticationGate((body) => reauthenticate(body));
  const requests = createRequests(mode, transport, session, {
    gate,
    prompt: options.onReauthenticationRequired,
    now: () => resolved.clock.now(),
  });
  const secondFactor = secondFactorMethods(requests, session, gate);
  reauthenticate = secondFactor.reauthenticate;
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
  /** A sign-in (as in 1.1): the session; a second-factor step is the server's error, thrown. */
  const signInSession = async (operation: 'login' | 'acceptInvitation', body: object) =>
    (await signIn(operation, body as OperationTypes[typeof operation]['body'])).state;
  /** A sign-in whose answer may be the second-factor step: a result to switch on. */
  const signInStep = async (operation: 'login' | 'acceptInvitation', body: object) => {
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
    ...secondFactor,
    mode,
    passkeys: passkeysOf(requests, session),
    sso: ssoMethods(call),
    // Checked by the answer's rule (answers.ts): a save answers its connection, never `null`.
    configureSso: async (body) => (await call('configureSso', { body })).sso as SsoConnection,
    // The mapping is the body's one field: the method takes and answers the list itself.
    setScimGroupRoles: async (groupRoles) =>
      (await call('setScimGroupRoles', { body: { groupRoles } })).groupRoles,

    async register(body) {
      const { data, state } = await signIn('register', body);
      return { ...state, tenant: data.tenant };
    },
    login: (body) => signInSession('login', body),
    loginStep: (body) => signInStep('login', body),
    acceptInvitation: (body) => signInSession('acceptInvitation', body),
    acceptInvitationStep: (body) => signInStep('acceptInvitation', body),
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
