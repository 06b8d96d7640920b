import { DEVICE_INFO_MAX_LENGTH } from '../../mechanisms/inputs/device-info.js';
import { EMAIL_MAX_LENGTH } from '../../mechanisms/inputs/email.js';
import { TENANT_NAME_MAX_LENGTH } from '../../mechanisms/inputs/inputs.js';
import type { Services } from '../../mechanisms/services.js';
import type { AccessClaims, Principal, RegisterResult, TokenResponse } from '../../vocabulary/claims.js';
import type { RequestContext, Tenant } from '../../vocabulary/records.js';
import { createAccountDeletion } from './account-deletion.js';
import { type ChangeEmailInput, createEmailAddress } from './email-address.js';
import { createLogin, LOGIN_FIELD_MAX_LENGTH, type LoginInput } from './login.js';
import { createPasswordConfirmation } from './password-confirmation.js';
import {
  type ChangePasswordInput,
  createPasswordRecovery,
  type ResetPasswordInput,
} from './password-recovery.js';
import { createRegistration, type RegisterInput } from './registration.js';
import { createTenantReads } from './tenant-reads.js';

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
 * The accounts' part of `TenantAuth` (docs/http-api.md, "Endpoints", "Account recovery and email
 * verification"): registration, login, the password and the email address of an account, its deletion,
 * and the caller's tenant.
 *
 * @example
 * const accounts: TenantAuthAccounts = auth;
 * const { accessToken } = await accounts.login({ email, password }, { ipAddress, userAgent });
 */
export interface TenantAuthAccounts {
  /** What the inputs accept (lengths), for documents and forms. */
  readonly inputLimits: InputLimits;
  /**
   * Creates a tenant and its first user, and logs the user in, in one transaction: all of it or nothing.
   * Fails with `validation_failed` (field codes: `invalid_email`, `email_taken`, the password rules,
   * `too_long` for the tenant name), `rate_limited` (the client's network holds its share of the hashing
   * pool), `unavailable` (hashing queue full, or a store down). Per-client rate
   * limits are the HTTP adapter's, through {@link TenantAuthSessions.rateLimit}.
   */
  register(input: RegisterInput, context?: RequestContext): Promise<RegisterResult>;
  /**
   * Fails with `invalid_credentials` (the same, after the same work, for an unknown email and a wrong
   * password), `validation_failed` for a malformed email, `rate_limited` when the account is throttled,
   * `unavailable` when the hashing queue is full or a store does not answer. With the right password,
   * no session is made when a second factor is due: `mfa_required` (its `extensions` are an
   * `MfaChallenge`: answer with {@link TenantAuthMfa.verifyMfa}) when the user has a factor,
   * `mfa_setup_required` (`extensions` `{ mfaToken, expiresIn }`: enrol with
   * {@link TenantAuthMfa.setupTotp} and {@link TenantAuthMfa.confirmTotp}) when the tenant requires one and the
   * user has none.
   */
  login(input: LoginInput, context?: RequestContext): Promise<TokenResponse>;
  /**
   * Starts a password reset: resolves at once, the same way whether or not the address has an account.
   * The request only holds the address (no I/O); the lookup, the token and the email are made by the
   * next timer pass of {@link TenantAuthMaintenance.startMailDelivery} (or by {@link TenantAuthMaintenance.deliverMail} or
   * {@link TenantAuthMaintenance.whenIdle}), so the work a known address causes never follows its request. Fails
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
   * Changes the caller's password, keeping the current session and revoking every other. Needs a recent
   * authentication (1.3). A wrong `currentPassword` counts towards the account's login throttle. Fails
   * with `validation_failed` (`currentPassword`: `incorrect`; the rules, on `newPassword`),
   * `reauthentication_required`, `rate_limited`.
   */
  changePassword(claims: AccessClaims, input: ChangePasswordInput, context?: RequestContext): Promise<void>;
  /** Sends the caller a new verification link (nothing when already verified). */
  requestEmailVerification(claims: AccessClaims, context?: RequestContext): Promise<void>;
  /** Marks an email verified from its link. Fails with `validation_failed` (`token`: `invalid_or_expired`). */
  verifyEmail(input: { token: string }, context?: RequestContext): Promise<void>;
  /**
   * Asks to change the caller's email: a confirmation link to the new address and a notice to the old
   * one. Needs a recent authentication (1.3) and the current password. Fails with `validation_failed`
   * (`newEmail`: `invalid_email`, `email_taken`; `password`: `incorrect`), `reauthentication_required`,
   * `rate_limited`.
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
   * it. Needs a recent authentication (1.3) and the password; a user SSO provisioned, which has none,
   * sends none after a recent SSO authentication (`reauthenticateSso`). Fails with `validation_failed`
   * (`password`: `incorrect`), `reauthentication_required` and `last_owner` (other members remain and
   * nobody else owns the tenant).
   */
  deleteAccount(
    claims: AccessClaims,
    input: { password?: string | undefined },
    context?: RequestContext,
  ): Promise<void>;
  /** The tenant with that id if it is the caller's own; `not_found` for any other id. */
  getTenant(principal: Principal, tenantId: string): Promise<Tenant>;
  /** The caller's own tenant. */
  getMyTenant(principal: Principal): Promise<Tenant>;
}

/**
 * @internal The account use cases. Held "forgot password" requests are processed on the delivery worker's
 * timer passes (and by `deliverMail`, `whenIdle`): the mail outbox's scheduled task.
 */
export function createAccounts(services: Services): TenantAuthAccounts {
  const { stores, hasher, policy, sessionTokens, clock, random, events, mail, limits, instrumentation } =
    services;
  const confirmPassword = createPasswordConfirmation(services);
  const { forgotPassword, resetPassword, changePassword, processHeld } = createPasswordRecovery(
    services,
    confirmPassword,
  );
  mail?.onScheduledPass(processHeld);
  const { enqueueVerification, ...emailAddress } = createEmailAddress(services, confirmPassword);
  const register = createRegistration({
    stores,
    hasher,
    policy,
    sessionTokens,
    clock,
    random,
    events,
    enqueueVerification,
    wakeMail: () => mail?.wake(),
  });
  const login = createLogin({
    stores,
    hasher,
    sessionTokens,
    dummyHash: services.dummyHash,
    throttle: limits?.loginThrottle,
    events,
    background: services.background,
    logger: services.logger,
    secondFactor: services.secondFactor,
  });
  return {
    inputLimits: {
      emailMaxLength: EMAIL_MAX_LENGTH,
      passwordMinLength: policy.minLength,
      passwordMaxLength: policy.maxLength,
      tenantNameMaxLength: TENANT_NAME_MAX_LENGTH,
      deviceInfoMaxLength: DEVICE_INFO_MAX_LENGTH,
      loginFieldMaxLength: LOGIN_FIELD_MAX_LENGTH,
    },
    register: (input, context) =>
      instrumentation.span('tenant-auth.register', () => register(input, context)),
    login: (input, context) => instrumentation.span('tenant-auth.login', () => login(input, context)),
    forgotPassword,
    resetPassword,
    changePassword,
    ...emailAddress,
    deleteAccount: createAccountDeletion(services, confirmPassword),
    ...createTenantReads(stores.tenants),
  };
}
