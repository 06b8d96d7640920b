import type { AccessClaims, TokenResponse } from './claims.js';
import type { Role } from './roles.js';

/**
 * The second factors a user can answer a challenge with (docs/http-api.md, "Second factor: TOTP and recovery codes"): the one list of them.
 *
 * @example
 * if ((MFA_METHODS as readonly string[]).includes(body.method)) input.method = body.method;
 */
export const MFA_METHODS = ['totp', 'recovery_code', 'passkey'] as const;

/**
 * One of {@link MFA_METHODS}.
 *
 * @example
 * const method: MfaMethod = 'totp';
 */
export type MfaMethod = (typeof MFA_METHODS)[number];

/**
 * The extension members of a `mfa_required` error (`err.extensions`): the challenge to answer with
 * {@link TenantAuthMfa.verifyMfa}. `mfa_setup_required` carries `mfaToken` and `expiresIn` only.
 *
 * @example
 * if (isTenantAuthError(err, 'mfa_required')) {
 *   const { mfaToken, methods } = err.extensions as MfaChallenge;
 * }
 */
export interface MfaChallenge {
  /** Opaque, single use, 5 minutes. */
  mfaToken: string;
  /** The user's factors. */
  methods: MfaMethod[];
  /** Seconds until `mfaToken` expires (300). */
  expiresIn: number;
}

/**
 * Input of {@link TenantAuthMfa.verifyMfa}.
 *
 * @example
 * const input: VerifyMfaInput = { mfaToken, method: 'totp', code: '123456' };
 */
export interface VerifyMfaInput {
  mfaToken: string;
  method: MfaMethod;
  /** Six digits for `totp`; a recovery code such as `k7pmq-x4t2r` (case and dashes ignored). Not for `passkey`. */
  code?: string | undefined;
  /**
   * For `passkey`: the WebAuthn assertion (`AuthenticationResponseJSON`) made with the options of
   * {@link TenantAuthMfa.mfaPasskeyOptions}.
   */
  credential?: unknown;
  /** Free text naming the device (at most 200 characters). */
  deviceInfo?: string | undefined;
}

/**
 * Who sets up or confirms a TOTP factor: a signed-in user (a recent authentication is required), or the
 * `mfaToken` of a `mfa_setup_required` answer.
 *
 * @example
 * const caller: MfaCaller = { claims };
 * const enrolling: MfaCaller = { mfaToken };
 */
export type MfaCaller = { claims: AccessClaims } | { mfaToken: string };

/**
 * What {@link TenantAuthMfa.setupTotp} answers: shown once, to put into an authenticator app.
 *
 * @example
 * const { otpauthUri }: TotpSetup = await auth.setupTotp({ claims });
 */
export interface TotpSetup {
  /** The secret, base32 without padding. */
  secret: string;
  /** `otpauth://totp/<issuer>:<email>?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`. */
  otpauthUri: string;
}

/**
 * Input of {@link TenantAuthMfa.confirmTotp}.
 *
 * @example
 * const input: ConfirmTotpInput = { code: '123456' };
 */
export interface ConfirmTotpInput {
  code: string;
  /** Names the device of the new session (with an `mfaToken` caller). */
  deviceInfo?: string | undefined;
}

/**
 * What {@link TenantAuthMfa.confirmTotp} answers: the recovery codes when the user had none (shown this
 * once), and, for an `mfaToken` caller, the token response of the new session.
 *
 * @example
 * const { recoveryCodes, tokens }: ConfirmTotpResult = await auth.confirmTotp({ mfaToken }, { code });
 */
export interface ConfirmTotpResult {
  /** 10 new codes, or `null` when the user already had recovery codes. */
  recoveryCodes: string[] | null;
  /** The new session's token response (amr `['pwd','otp','mfa']`) for an `mfaToken` caller; else `null`. */
  tokens: TokenResponse | null;
}

/**
 * Input of {@link TenantAuthMfa.reauthenticate}: the password, and, when the user has a factor, a code; or a
 * passkey's assertion alone.
 *
 * @example
 * const input: ReauthenticateInput = { password, method: 'totp', code: '123456' };
 */
export interface ReauthenticateInput {
  password?: string | undefined;
  method?: MfaMethod | undefined;
  code?: string | undefined;
  /**
   * With `method: 'passkey'` (and no password): the WebAuthn assertion made with the options of
   * {@link TenantAuthMfa.reauthenticationOptions}.
   */
  credential?: unknown;
}

/**
 * A tenant's security policy.
 *
 * @example
 * const { requireMfa }: SecurityPolicy = await auth.getSecurityPolicy(claims);
 */
export interface SecurityPolicy {
  /** Every user must sign in with a second factor. */
  requireMfa: boolean;
}

/**
 * The caller's account (`GET /users/me`).
 *
 * @example
 * const me: Me = await auth.getMe(claims);
 * if (!me.mfa.totp) suggestTwoFactor();
 */
export interface Me {
  id: string;
  email: string;
  tenantId: string;
  role: Role;
  emailVerified: boolean;
  createdAt: Date;
  mfa: {
    /** Whether a confirmed TOTP factor is active. */
    totp: boolean;
    /** Passkeys registered. */
    passkeys: number;
    /** Recovery codes not used yet. */
    recoveryCodesRemaining: number;
  };
}
