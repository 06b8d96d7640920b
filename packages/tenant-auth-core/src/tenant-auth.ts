import type { ChangeEmailInput } from './accounts/email-address.js';
import type { LoginInput } from './accounts/login.js';
import type { ChangePasswordInput, ResetPasswordInput } from './accounts/password-recovery.js';
import type { RegisterInput } from './accounts/registration.js';
import type { CreateApiKeyInput, CreatedApiKey } from './api-keys/api-keys.js';
import type { AuditEventListInput, AuditEventPage } from './audit/audit-log.js';
import type { AccessClaims, ApiKeyClaims, Principal, RegisterResult, TokenResponse } from './claims.js';
import type { CleanupResult } from './cleanup.js';
import type { MailDeliveryResult } from './mail/mail-outbox.js';
import type { AcceptInvitationInput, CreateInvitationInput } from './members/invitations.js';
import type { Role } from './members/roles.js';
import type {
  ConfirmTotpInput,
  ConfirmTotpResult,
  Me,
  MfaCaller,
  ReauthenticateInput,
  SecurityPolicy,
  TotpSetup,
  VerifyMfaInput,
} from './mfa/mfa-types.js';
import type { PublicKeyCredentialRequestOptionsJSON, TenantAuthPasskeys } from './passkeys/passkey-types.js';
import type { PasswordHasherStats } from './passwords/hasher.js';
import type { ClientBudget, RateLimitResult } from './rate-limit/rate-limit-result.js';
import type { ApiKey, Invitation, Member, RequestContext, SessionInfo, Tenant } from './records.js';
import type { ConfigureSsoInput, Domain, SsoCompletion, SsoConnection, SsoStart } from './sso/sso-types.js';
import type { OutboxCounts } from './stores/tenant-auth-stores.js';

/**
 * What the inputs of a `TenantAuth` accept, so an HTTP adapter can document the same limits it enforces
 * (the OpenAPI document of tenant-auth-koa is built from them).
 *
 * @example
 * const { passwordMinLength, passwordMaxLength }: InputLimits = auth.inputLimits;
 */
export interface InputLimits {
  /** Longest email address, in UTF-8 bytes (RFC 5321). */
  emailMaxLength: number;
  /** Shortest new password, in code points (the password policy). */
  passwordMinLength: number;
  /** Longest new password, in code points (the password policy). */
  passwordMaxLength: number;
  /** Longest tenant name, in characters once trimmed. */
  tenantNameMaxLength: number;
  /** Longest `deviceInfo`, in characters. */
  deviceInfoMaxLength: number;
  /** Longest email or password a login takes before refusing the body as malformed. */
  loginFieldMaxLength: number;
}

/**
 * Work started by {@link TenantAuth.startCleanup} or {@link TenantAuth.startMailDelivery}: `stop` ends it
 * and resolves once the pass in flight has finished.
 *
 * @example
 * const delivery: ScheduledWork = auth.startMailDelivery();
 * process.once('SIGTERM', () => void delivery.stop());
 */
export interface ScheduledWork {
  stop(): Promise<void>;
}

/**
 * Load figures for gauges (metrics are read at scrape time).
 *
 * @example
 * const { hashing } = auth.stats();
 * hashingQueue.set(hashing.queued);
 */
export interface TenantAuthStats {
  /** The bounded password-hashing pool: running and waiting operations. */
  hashing: PasswordHasherStats;
}

/**
 * The service composed by `createTenantAuth`. Every method fails with a `TenantAuthError` (switch on
 * its `code`); every input is validated here, so it is safe to pass data from a request.
 *
 * Methods that administer a tenant (members, invitations, the audit log) or change the caller's account
 * (password, email, deletion, revoking sessions) fail with `invalid_token` as soon as the token's session
 * is no longer active (logout, "sign out everywhere", a password reset), whatever
 * `checkSessionOnVerify` says; plain reads accept a valid token until it expires.
 *
 * @example
 * const { accessToken } = await auth.login({ email, password }, { ipAddress, userAgent });
 * const claims = await auth.verifyAccessToken(accessToken);
 * const tenant = await auth.getMyTenant(claims);
 */
export interface TenantAuth extends TenantAuthPasskeys {
  /** What the inputs accept (lengths), for documents and forms. */
  readonly inputLimits: InputLimits;
  /**
   * Creates a tenant and its first user, and logs the user in, in one transaction: all of it or nothing.
   * Fails with `validation_failed` (field codes: `invalid_email`, `email_taken`, the password rules,
   * `too_long` for the tenant name), `rate_limited` (the client's network holds its share of the hashing
   * pool), `unavailable` (hashing queue full, or a store down). Per-client rate
   * limits are the HTTP adapter's, through {@link TenantAuth.rateLimit}.
   */
  register(input: RegisterInput, context?: RequestContext): Promise<RegisterResult>;
  /**
   * Fails with `invalid_credentials` (the same, after the same work, for an unknown email and a wrong
   * password), `validation_failed` for a malformed email, `rate_limited` when the account is throttled,
   * `unavailable` when the hashing queue is full or a store does not answer. With the right password,
   * no session is made when a second factor is due: `mfa_required` (its `extensions` are an
   * `MfaChallenge`: answer with {@link TenantAuth.verifyMfa}) when the user has a factor,
   * `mfa_setup_required` (`extensions` `{ mfaToken, expiresIn }`: enrol with
   * {@link TenantAuth.setupTotp} and {@link TenantAuth.confirmTotp}) when the tenant requires one and the
   * user has none.
   */
  login(input: LoginInput, context?: RequestContext): Promise<TokenResponse>;
  /**
   * Answers a `mfa_required` challenge with a TOTP or recovery code: a new session with `amr`
   * `['pwd','otp','mfa']`. Fails with `validation_failed` (`code`: `incorrect`; counted on the challenge
   * and against the account's MFA budget, never the password throttle), `invalid_token` (unknown,
   * expired or used `mfaToken`, or 5 wrong answers to it), `rate_limited`.
   */
  verifyMfa(input: VerifyMfaInput, context?: RequestContext): Promise<TokenResponse>;
  /**
   * Starts (or restarts) a TOTP setup: a new secret, unconfirmed until {@link TenantAuth.confirmTotp}.
   * A signed-in caller needs a recent authentication. Fails with `already_enabled`, `invalid_token`,
   * `reauthentication_required`.
   */
  setupTotp(caller: MfaCaller, context?: RequestContext): Promise<TotpSetup>;
  /**
   * Confirms the TOTP setup with a code from the app: the factor is active and every other session of
   * the user is revoked. Fails with `validation_failed` (`code`: `incorrect`), `invalid_token`,
   * `reauthentication_required`.
   */
  confirmTotp(
    caller: MfaCaller,
    input: ConfirmTotpInput,
    context?: RequestContext,
  ): Promise<ConfirmTotpResult>;
  /**
   * Removes the caller's TOTP factor (and the recovery codes with it). Needs a recent authentication.
   * Fails with `not_found` (none active), `mfa_required_by_tenant`, `reauthentication_required`.
   */
  disableTotp(claims: AccessClaims, context?: RequestContext): Promise<void>;
  /**
   * A new set of 10 recovery codes, voiding the old. Needs a recent authentication. Fails with
   * `mfa_not_enabled`, `reauthentication_required`.
   */
  regenerateRecoveryCodes(
    claims: AccessClaims,
    context?: RequestContext,
  ): Promise<{ recoveryCodes: string[] }>;
  /**
   * Proves again who the caller is, for the same session: a new refresh token, `authTime` now, `amr` as
   * proven. A user without a factor sends `password`; one with a factor also `method` and `code`. Fails
   * with `validation_failed` (`password` or `code`: `incorrect`), `invalid_token`, `rate_limited`.
   */
  reauthenticate(
    claims: AccessClaims,
    input: ReauthenticateInput,
    context?: RequestContext,
  ): Promise<TokenResponse>;
  /**
   * Resolves when the caller's authentication is recent: `authTime` at most `maxAgeSeconds` old (default:
   * the `reauthMaxAgeSeconds` option, 600) and, when the user has a factor, `amr` has `mfa`. Otherwise
   * fails with `reauthentication_required` (and `invalid_token` when the session is no longer active).
   */
  requireRecentAuth(claims: AccessClaims, options?: { maxAgeSeconds?: number }): Promise<void>;
  /** WebAuthn request options for the caller's passkeys, to re-authenticate with one (`method: 'passkey'`). */
  reauthenticationOptions(claims: AccessClaims): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /**
   * WebAuthn request options listing the passkeys of a `mfa_required` challenge's user, to answer it with
   * `verifyMfa({ method: 'passkey', credential })`. Fails with `invalid_token`.
   */
  mfaPasskeyOptions(input: { mfaToken: string }): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /** The caller's tenant's security policy (admin). */
  getSecurityPolicy(claims: AccessClaims): Promise<SecurityPolicy>;
  /**
   * Changes the tenant's security policy (owner, recent authentication). Turning `requireMfa` on revokes
   * every session of the tenant whose `amr` has neither `mfa` nor `sso`. Fails with `mfa_not_enabled`
   * (the caller has no factor), `forbidden`, `reauthentication_required`.
   */
  setSecurityPolicy(
    claims: AccessClaims,
    input: SecurityPolicy,
    context?: RequestContext,
  ): Promise<SecurityPolicy>;
  /** The caller's account with its second-factor state. Fails with `invalid_token` when it is gone. */
  getMe(claims: AccessClaims): Promise<Me>;
  /**
   * Adds an email domain to the caller's tenant (owner, recent authentication), unverified, with the TXT
   * record that will prove it; the tenant's existing record when it has it already. Fails with
   * `validation_failed` (`domain`: `invalid_domain`: not a lower-case host name, or a public suffix),
   * `domain_taken` (another tenant verified it), `forbidden`, `reauthentication_required`, `unavailable`
   * (no `sso` option).
   */
  addDomain(claims: AccessClaims, input: { domain: string }, context?: RequestContext): Promise<Domain>;
  /** The caller's tenant's domains, oldest first (admin). */
  listDomains(claims: AccessClaims): Promise<Domain[]>;
  /**
   * Verifies a domain of the caller's tenant once its TXT record holds the value (owner, recent). Fails
   * with `domain_not_verified`, `domain_taken` (another tenant verified it first), `not_found`.
   */
  verifyDomain(claims: AccessClaims, name: string, context?: RequestContext): Promise<Domain>;
  /** Removes a domain of the caller's tenant (owner, recent). Fails with `not_found`. */
  removeDomain(claims: AccessClaims, name: string, context?: RequestContext): Promise<void>;
  /**
   * Connects (or reconnects) the caller's tenant to its OpenID Connect provider (owner, recent): the
   * issuer's discovery document is fetched and checked first; the client secret is sealed and never
   * returned. Turning `enforce` on revokes the password and passkey sessions of the users it holds.
   * Fails with `validation_failed` (`issuer`: `issuer_unreachable`; other field codes), `forbidden`,
   * `reauthentication_required`, `unavailable` (no `sso` option).
   */
  configureSso(
    claims: AccessClaims,
    input: ConfigureSsoInput,
    context?: RequestContext,
  ): Promise<SsoConnection>;
  /** The caller's tenant's connection (admin), `null` when none; never the client secret. */
  getSso(claims: AccessClaims): Promise<SsoConnection | null>;
  /** Removes the caller's tenant's connection (owner, recent). Fails with `not_found`. */
  removeSso(claims: AccessClaims, context?: RequestContext): Promise<void>;
  /**
   * Starts a sign-in through the identity provider of the tenant that verified the address's domain:
   * the authorization URL, and the sealed `sso_state` cookie value that binds `state`, `nonce` and the
   * PKCE verifier to this browser. `returnTo` is kept only when it is of the application's origin. Fails
   * with `not_found` (no verified domain with SSO for this address).
   */
  startSso(input: { email: string; returnTo?: string | undefined }): Promise<SsoStart>;
  /**
   * Completes a sign-in from the provider's redirect (`search`: the query string of the callback, with its
   * `?`) and the `sso_state` cookie:
   * a new session (`amr` `["sso"]`, plus `mfa` when the provider's `amr` says so) and where to send the
   * browser, or the error page (`invalid_state`, `idp_error`, `invalid_id_token`, `domain_mismatch`,
   * `email_taken`, `identity_mismatch`). Users are identified by `(issuer, sub)`.
   */
  completeSso(
    input: { stateCookie: string | undefined; search: string },
    context?: RequestContext,
  ): Promise<SsoCompletion>;
  /** Rotates a refresh token (grace-period races get the identical child). Fails with `invalid_token`. */
  refresh(refreshToken: string, context?: RequestContext): Promise<TokenResponse>;
  /** Revokes the session named by an access or refresh token. Fails with `invalid_token`. */
  logout(token: string, context?: RequestContext): Promise<void>;
  /**
   * Verifies an access token (signature, algorithm, type, issuer, audience, expiry) and, when
   * `checkSessionOnVerify` is on, that its session is still active. Fails with `invalid_token`.
   */
  verifyAccessToken(token: string): Promise<AccessClaims>;
  /** The caller's active sessions, newest first, at most 100, marking the caller's own. */
  listSessions(claims: AccessClaims): Promise<SessionInfo[]>;
  /** Revokes one of the caller's sessions; `not_found` for any other id. */
  revokeSession(claims: AccessClaims, sessionId: string, context?: RequestContext): Promise<void>;
  /** Revokes all of the caller's sessions, optionally keeping the current one. Returns the count. */
  revokeAllSessions(
    claims: AccessClaims,
    options?: { exceptCurrent?: boolean },
    context?: RequestContext,
  ): Promise<number>;
  /** The tenant with that id if it is the caller's own; `not_found` for any other id. */
  getTenant(principal: Principal, tenantId: string): Promise<Tenant>;
  /** The caller's own tenant. */
  getMyTenant(principal: Principal): Promise<Tenant>;
  /** Public keys of the access-token signer (`{ keys: [] }` for HMAC). */
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
  /**
   * Counts one request of a client against a per-client budget (`strict` for the routes that take
   * credentials, `general` for the others) and returns the budget's state for the `RateLimit-*` headers.
   * Fails with `rate_limited` (its `rateLimit` describes the refusing budget) when over the budget, and
   * with `unavailable` when the store is down and the budget fails closed (`strict` does). With rate
   * limiting off (`rateLimit: false`) it always allows and returns `null`.
   */
  rateLimit(
    budget: ClientBudget,
    context: RequestContext,
    apiKey?: ApiKeyClaims,
  ): Promise<RateLimitResult | null>;
  /**
   * The caller's account as the stores know it now, if its role is at least `minimum` (owner > admin >
   * member): the one role check, for an application's own routes (tenant-auth-koa's `requireRole`).
   * Fails with `forbidden` below it, and `invalid_token` when the account no longer exists or, for
   * `admin` and `owner`, when the token's session is no longer active (logged out, revoked, reset). A
   * token's `role` claim may be up to its lifetime old; this is not. For an API key: the key as the
   * stores know it now (`invalid_token` once revoked or expired), if its role is at least `minimum`.
   */
  authorize(claims: AccessClaims, minimum: Role): Promise<Member>;
  authorize(apiKey: ApiKeyClaims, minimum: Role): Promise<ApiKey>;
  authorize(principal: Principal, minimum: Role): Promise<Member | ApiKey>;

  /** The members of the caller's tenant, oldest first, at most 1,000. Any member may list them. */
  listMembers(principal: Principal): Promise<Member[]>;
  /**
   * Changes a member's role (admin). Fails with `not_found` (not in the caller's tenant), `forbidden`
   * (the caller is not an admin; an admin touching an owner or granting `owner`), `last_owner`, and
   * `validation_failed` (`invalid_role`).
   */
  changeMemberRole(
    principal: Principal,
    userId: string,
    role: Role,
    context?: RequestContext,
  ): Promise<Member>;
  /**
   * Removes a member (admin): the account is deleted and every session of it with it, in one
   * transaction. Same failures as {@link TenantAuth.changeMemberRole}.
   */
  removeMember(principal: Principal, userId: string, context?: RequestContext): Promise<void>;
  /**
   * Invites an address into the caller's tenant (admin): a one-time token (7 days by default) and an
   * email with its link, written in one transaction; a pending invitation of the same address is
   * replaced. Fails with `validation_failed` (`invalid_email`, `email_taken`, `invalid_role`),
   * `forbidden` (an admin inviting an owner), `rate_limited` (too many emails to that address),
   * `unavailable` (no `mail` configured).
   */
  createInvitation(
    principal: Principal,
    input: CreateInvitationInput,
    context?: RequestContext,
  ): Promise<Invitation>;
  /** Pending invitations of the caller's tenant, newest first, at most 1,000 (admin). */
  listInvitations(principal: Principal): Promise<Invitation[]>;
  /** Revokes a pending invitation (admin): its link stops working. `not_found` for any other id. */
  revokeInvitation(principal: Principal, invitationId: string, context?: RequestContext): Promise<void>;
  /**
   * Accepts an invitation: creates the user in the inviting tenant with the invited role and a verified
   * email, and signs it in. The token is consumed in the same transaction, so a failure leaves it usable.
   * Fails with `validation_failed` (`token`: `invalid_or_expired`; the password rules; `email_taken`).
   */
  acceptInvitation(input: AcceptInvitationInput, context?: RequestContext): Promise<TokenResponse>;

  /**
   * Starts a password reset: resolves at once, the same way whether or not the address has an account.
   * The request only holds the address (no I/O); the lookup, the token and the email are made by the
   * next timer pass of {@link TenantAuth.startMailDelivery} (or by {@link TenantAuth.deliverMail} or
   * {@link TenantAuth.whenIdle}), so the work a known address causes never follows its request. Fails
   * only for a malformed address (`validation_failed`) and with `unavailable` without `mail`.
   */
  forgotPassword(input: { email: string }, context?: RequestContext): Promise<void>;
  /**
   * Sets a new password from a reset link: every session of the user is revoked and the email marked
   * verified. A failure leaves the old password and the link working. Fails with `validation_failed`
   * (`token`: `invalid_or_expired`; the password rules).
   */
  resetPassword(input: ResetPasswordInput, context?: RequestContext): Promise<void>;
  /**
   * Changes the caller's password, keeping the current session and revoking every other. A wrong
   * `currentPassword` counts towards the account's login throttle. Fails with `validation_failed`
   * (`currentPassword`: `incorrect`; the rules, on `newPassword`), `rate_limited`.
   */
  changePassword(claims: AccessClaims, input: ChangePasswordInput, context?: RequestContext): Promise<void>;
  /** Sends the caller a new verification link (nothing when already verified). */
  requestEmailVerification(claims: AccessClaims, context?: RequestContext): Promise<void>;
  /** Marks an email verified from its link. Fails with `validation_failed` (`token`: `invalid_or_expired`). */
  verifyEmail(input: { token: string }, context?: RequestContext): Promise<void>;
  /**
   * Asks to change the caller's email: a confirmation link to the new address and a notice to the old
   * one. Needs the current password. Fails with `validation_failed` (`newEmail`: `invalid_email`,
   * `email_taken`; `password`: `incorrect`), `rate_limited`.
   */
  changeEmail(claims: AccessClaims, input: ChangeEmailInput, context?: RequestContext): Promise<void>;
  /**
   * Confirms an email change from its link: the new address replaces the old one, verified, and every
   * session but the one that asked is revoked. Fails with `validation_failed` (`token`:
   * `invalid_or_expired` or `email_taken`), leaving the old address in place.
   */
  confirmEmailChange(input: { token: string }, context?: RequestContext): Promise<void>;
  /**
   * Deletes the caller's account and its sessions; a tenant whose only member leaves is deleted with
   * it. Needs the password. Fails with `validation_failed` (`password`: `incorrect`) and `last_owner`
   * (other members remain and nobody else owns the tenant).
   */
  deleteAccount(claims: AccessClaims, input: { password: string }, context?: RequestContext): Promise<void>;

  /** A page of the caller's tenant's audit log, newest first (admin). Fails with `validation_failed`. */
  listAuditEvents(principal: Principal, input?: AuditEventListInput): Promise<AuditEventPage>;

  /**
   * One delivery pass of the mail outbox, after processing the held "forgot password" requests (for a job
   * of your own; {@link TenantAuth.startMailDelivery} runs it for you).
   */
  deliverMail(): Promise<MailDeliveryResult>;
  /**
   * Delivers the outbox on an unref'd timer (default every 5 seconds, each wait drawn between half and
   * the whole of it) and at once after each commit that wrote an email. Held "forgot password" requests
   * are processed on the timer's passes only, never on one a request caused. Several instances may run it
   * on one database: each message goes to one of them. `stop()` also writes the held requests to the
   * outbox. Throws `invalid_configuration` without `mail`.
   */
  startMailDelivery(options?: { intervalSeconds?: number }): ScheduledWork;
  /** The outbox backlog, for metrics and alerts. */
  outboxCounts(): Promise<OutboxCounts>;
  /**
   * Resolves once the work requests started without waiting for it is done, the held "forgot password"
   * requests included (their emails are then in the outbox), for up to 10 s of them: what is left stays
   * held for the delivery worker's next pass, so a shutdown never waits for a whole backlog.
   */
  whenIdle(): Promise<void>;
  /** Load figures for gauges. */
  stats(): TenantAuthStats;

  /**
   * Deletes expired sessions and revoked ones past retention, expired one-time tokens, audit events past
   * retention and long-dead outbox messages, in batches, resting after each full batch three times as long
   * as it took (a long pass spends at most a quarter of its time deleting). One pass at a time: a second
   * call while one runs gets the same result.
   *
   * @example
   * const { sessions } = await auth.cleanup();
   */
  cleanup(): Promise<CleanupResult>;
  /**
   * Runs {@link TenantAuth.cleanup} on an unref'd timer (default every 10 minutes). `stop()` also ends
   * the pass in flight, whoever started it: it finishes the batch it is deleting, starts no other and cuts
   * a rest short, so shutdown waits for one batch at most.
   *
   * @example
   * const cleanup = auth.startCleanup({ intervalSeconds: 600 });
   * process.once('SIGTERM', () => void cleanup.stop());
   */
  startCleanup(options?: { intervalSeconds?: number }): ScheduledWork;

  /**
   * Creates an API key of the caller's tenant (admin, with a recent authentication and a verified
   * email): `{ apiKey, secret }`, the secret answered this once (only its SHA-256 is stored). Fails
   * with `validation_failed` (`name`, `role`: `invalid_role`, `expiresInDays`), `forbidden` (a role above
   * the caller's, a caller below admin, or an API key as the caller), `reauthentication_required`,
   * `email_not_verified`, `invalid_token`.
   */
  createApiKey(
    principal: Principal,
    input: CreateApiKeyInput,
    context?: RequestContext,
  ): Promise<CreatedApiKey>;
  /** The tenant's API keys that are not revoked, oldest first, at most 1,000 (admin; never a secret). */
  listApiKeys(principal: Principal): Promise<ApiKey[]>;
  /**
   * Revokes an API key (admin): it stops working at once in this process, and within
   * `apiKeyCacheSeconds` in every other. Fails with `not_found` (unknown, already revoked, or another
   * tenant's), `forbidden`.
   */
  revokeApiKey(principal: Principal, apiKeyId: string, context?: RequestContext): Promise<void>;
  /**
   * The key of a presented secret (`tak_…`), or `invalid_token` when it is unknown, expired, revoked or
   * not a key. Verified keys are cached in the process for `apiKeyCacheSeconds`: a cached key costs a
   * hash and a map lookup. `lastUsedAt` is written in the background at most once a minute per key.
   */
  verifyApiKey(secret: string): Promise<ApiKeyClaims>;
  /**
   * The key of a secret if this process verified it within `apiKeyCacheSeconds` (a check like
   * {@link TenantAuth.verifyApiKey}'s, counted and touching `lastUsedAt`), else `undefined`; never asks
   * the stores. An HTTP adapter's fast path: it keys the request's rate budget on the key before
   * anything else, and verifies with `verifyApiKey` only what this does not know.
   */
  peekApiKey(secret: string): ApiKeyClaims | undefined;
}
