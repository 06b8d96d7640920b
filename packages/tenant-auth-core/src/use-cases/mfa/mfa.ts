import type { Services } from '../../mechanisms/services.js';
import type { AccessClaims, TokenResponse } from '../../vocabulary/claims.js';
import type {
  ConfirmTotpInput,
  ConfirmTotpResult,
  Me,
  MfaCaller,
  ReauthenticateInput,
  SecurityPolicy,
  TotpSetup,
  VerifyMfaInput,
} from '../../vocabulary/mfa-types.js';
import type { RequestContext } from '../../vocabulary/records.js';
import type { PublicKeyCredentialRequestOptionsJSON } from '../../vocabulary/webauthn-options.js';
import { createTotpEnrolment } from './enrolment.js';
import { createFactorAnswers } from './factor-answers.js';
import { createFactorManagement } from './factor-management.js';
import { createMfaPasskeyOptions } from './passkey-answer.js';
import { createReauthentication } from './reauthentication.js';
import { createChallengeFailures, createMfaVerification } from './verification.js';

/**
 * The second factor's part of `TenantAuth` (docs/http-api.md, "Second factor: TOTP and recovery
 * codes", "Recent authentication", "Tenant security policy"): answering a login's challenge, enrolling
 * and removing TOTP, recovery codes, recent authentication, the tenant's policy and the caller's account.
 *
 * @example
 * const mfa: TenantAuthMfa = auth;
 * const { recoveryCodes } = await mfa.regenerateRecoveryCodes(claims);
 */
export interface TenantAuthMfa {
  /**
   * Answers a `mfa_required` challenge with a TOTP or recovery code: a new session with `amr`
   * `['pwd','otp','mfa']`. Fails with `validation_failed` (`code`: `incorrect`; counted on the challenge
   * and against the account's MFA budget, never the password throttle), `invalid_token` (unknown,
   * expired or used `mfaToken`, or 5 wrong answers to it), `rate_limited`.
   */
  verifyMfa(input: VerifyMfaInput, context?: RequestContext): Promise<TokenResponse>;
  /**
   * Starts (or restarts) a TOTP setup: a new secret, unconfirmed until {@link TenantAuthMfa.confirmTotp}.
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
}

/** @internal The second factor's use cases, each built once. */
export function createMfa(services: Services): TenantAuthMfa {
  const answer = createFactorAnswers(services);
  const failed = createChallengeFailures(services);
  const { setupTotp, confirmTotp } = createTotpEnrolment(services, failed);
  const { reauthenticate, reauthenticationOptions } = createReauthentication(services, answer);
  const { disableTotp, regenerateRecoveryCodes, getSecurityPolicy, setSecurityPolicy, getMe } =
    createFactorManagement(services);
  return {
    verifyMfa: createMfaVerification(services, answer, failed),
    setupTotp,
    confirmTotp,
    disableTotp,
    regenerateRecoveryCodes,
    reauthenticate,
    async requireRecentAuth(claims, options = {}) {
      await services.requireRecent(claims, options?.maxAgeSeconds);
    },
    reauthenticationOptions,
    mfaPasskeyOptions: createMfaPasskeyOptions(services),
    getSecurityPolicy,
    setSecurityPolicy,
    getMe,
  };
}
