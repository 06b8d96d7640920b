import type { AccessClaims, TokenResponse } from '../../vocabulary/claims.js';
import type { MfaCaller } from '../../vocabulary/mfa-types.js';
import type { RequestContext } from '../../vocabulary/records.js';

import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '../../vocabulary/webauthn-options.js';

/**
 * A passkey as its owner sees it (`GET /auth/passkeys`): never its key or credential id.
 *
 * @example
 * const [first]: PasskeyInfo[] = await auth.listPasskeys(claims);
 */
export interface PasskeyInfo {
  id: string;
  name: string;
  createdAt: Date;
  /** `null` until it signs a user in. */
  lastUsedAt: Date | null;
}

/**
 * Input of {@link TenantAuthPasskeys.addPasskey}.
 *
 * @example
 * const input: AddPasskeyInput = { credential: await startRegistration({ optionsJSON }), name: 'Laptop' };
 */
export interface AddPasskeyInput {
  /** The browser's `RegistrationResponseJSON`, made with the options of `passkeyRegistrationOptions`. */
  credential: unknown;
  /** A name for the user to recognise it by (at most 200 characters). Default `'Passkey'`. */
  name?: string | undefined;
  /** Names the device of the new session (with an `mfaToken` caller). */
  deviceInfo?: string | undefined;
}

/**
 * What {@link TenantAuthPasskeys.addPasskey} answers: the passkey; for an `mfaToken` caller (a tenant
 * requiring a factor) also the token response of a new session and the recovery codes (when the user
 * had none).
 *
 * @example
 * const { passkey, tokens }: AddPasskeyResult = await auth.addPasskey({ claims }, { credential });
 */
export interface AddPasskeyResult {
  passkey: PasskeyInfo;
  /** `amr` `['pwd','hwk','mfa']`, for an `mfaToken` caller; else `null`. */
  tokens: TokenResponse | null;
  /** 10 new codes for an `mfaToken` caller without codes; else `null`. */
  recoveryCodes: string[] | null;
}

/**
 * Input of {@link TenantAuthPasskeys.loginWithPasskey}.
 *
 * @example
 * const input: PasskeyLoginInput = { credential: await startAuthentication({ optionsJSON }) };
 */
export interface PasskeyLoginInput {
  /** The browser's `AuthenticationResponseJSON`, made with the options of `passkeyLoginOptions`. */
  credential: unknown;
  deviceInfo?: string | undefined;
}

/**
 * The passkey methods of `TenantAuth` (docs/http-api.md, "Passkeys (WebAuthn)"). Without the `webauthn` option they fail
 * with `invalid_configuration`.
 *
 * @example
 * const options = await auth.passkeyLoginOptions();
 * const tokens = await auth.loginWithPasskey({ credential });
 */
export interface TenantAuthPasskeys {
  /**
   * Creation options for a new passkey of the caller (a recent authentication, or the `mfaToken` of a
   * `mfa_setup_required`), excluding its passkeys. Fails with `invalid_token`, `reauthentication_required`.
   */
  passkeyRegistrationOptions(caller: MfaCaller): Promise<PublicKeyCredentialCreationOptionsJSON>;
  /**
   * Registers the passkey of a registration response (user verification required). Fails with
   * `validation_failed` (`credential`: `invalid_credential`), `invalid_token`, `reauthentication_required`.
   */
  addPasskey(caller: MfaCaller, input: AddPasskeyInput, context?: RequestContext): Promise<AddPasskeyResult>;
  /** The caller's passkeys, oldest first. */
  listPasskeys(claims: AccessClaims): Promise<PasskeyInfo[]>;
  /**
   * Removes a passkey of the caller (recent authentication); the recovery codes go with the last factor.
   * Fails with `not_found`, `mfa_required_by_tenant`, `reauthentication_required`.
   */
  removePasskey(claims: AccessClaims, id: string, context?: RequestContext): Promise<void>;
  /** Request options for a passkey login: no `allowCredentials` (discoverable credentials). */
  passkeyLoginOptions(): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /**
   * Logs in with a passkey: a new session with `amr` `['hwk','mfa']`. Fails with `invalid_credentials`
   * (one answer for an unknown credential, a bad signature, an unknown or used challenge).
   */
  loginWithPasskey(input: PasskeyLoginInput, context?: RequestContext): Promise<TokenResponse>;
}
