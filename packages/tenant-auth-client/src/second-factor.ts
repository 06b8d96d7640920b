import type {
  ConfirmTotpRequest,
  ReauthenticateRequest,
  SetupTotpRequest,
  TokenResponse,
  TotpSetup,
  VerifyMfaRequest,
} from './contract.generated.js';
import { isTenantAuthClientError } from './errors.js';
import type { ReauthenticationGate, ReauthenticationPrompt } from './reauthentication.js';
import type { Requests } from './requests.js';
import type { Session } from './session.js';
import type { SessionState } from './tokens.js';

/**
 * The result of confirming a TOTP setup: the recovery codes (shown this once; `null` when the user had
 * some and they stay), and the session the confirmation signed in when it answered a
 * `mfa_setup_required` (`null` otherwise: the caller's own session goes on, every other one is revoked).
 *
 * @example
 * const { recoveryCodes, state } = await client.confirmTotp({ code, mfaToken });
 * if (recoveryCodes) showOnce(recoveryCodes);
 * if (state) showHome(state.user);
 */
export interface TotpConfirmResult {
  /** The ten recovery codes, shown this once; `null` when the user had codes and they stay. */
  recoveryCodes: string[] | null;
  /** With an `mfaToken`: the session the enrolment signed in; otherwise `null`. */
  state: SessionState | null;
}

/**
 * The client's methods for API 1.2's second factor and recent authentication. Each is named after its
 * operation, as every method of the client is.
 *
 * @example
 * const me = await client.getMe();
 * if (!me.mfa.totp) {
 *   const { otpauthUri } = await client.setupTotp();
 *   const { recoveryCodes } = await client.confirmTotp({ code: askForCode(otpauthUri) });
 * }
 */
export interface SecondFactorMethods {
  /**
   * `POST /auth/mfa/verify`: answers the {@link MfaChallenge} of a login with a TOTP or recovery code,
   * and signs in. A wrong code is a `validation_failed` (`code`: `incorrect`); an expired, used or
   * exhausted `mfaToken` an `invalid_token` (sign in again).
   */
  verifyMfa(body: VerifyMfaRequest): Promise<SessionState>;
  /**
   * `POST /auth/mfa/totp/setup` (*recent*, or with the `mfaToken` of a `mfa_setup_required`): a new
   * secret and its `otpauth://` URI for a QR code. Shown once: keep them out of any storage and URL.
   */
  setupTotp(body?: SetupTotpRequest): Promise<TotpSetup>;
  /**
   * `POST /auth/mfa/totp/confirm`: turns the setup on with a code of the authenticator. With the
   * `mfaToken` of a `mfa_setup_required`, it signs in too.
   */
  confirmTotp(body: ConfirmTotpRequest): Promise<TotpConfirmResult>;
  /** `DELETE /auth/mfa/totp` (*recent*): removes the TOTP factor. */
  disableTotp(): Promise<void>;
  /** `POST /auth/mfa/recovery-codes` (*recent*): a new set of recovery codes; the old set stops working. */
  regenerateRecoveryCodes(): Promise<string[]>;
  /**
   * `POST /auth/reauthenticate`: proves who the user is again (the password, plus a code when they have a
   * factor); new tokens for the same session, recent for `REAUTH_MAX_AGE_SECONDS`.
   */
  reauthenticate(body: ReauthenticateRequest): Promise<SessionState>;
  /**
   * Runs `call`; when it is refused with `reauthentication_required`, asks `prompt` to re-authenticate
   * the user, then runs `call` once more. When the prompt gives up, the refusal is thrown. As with the
   * client's `onReauthenticationRequired`, one prompt is open at a time: a refusal while one is open
   * waits for it, and a refusal the client's own prompt already answered is thrown without asking again.
   */
  withReauthentication<T>(call: () => Promise<T>, prompt: ReauthenticationPrompt): Promise<T>;
}

/** @internal The methods of {@link SecondFactorMethods} of a client. */
export function secondFactorMethods(
  requests: Requests,
  session: Session,
  prompts: ReauthenticationGate,
): SecondFactorMethods {
  // With an `mfaToken`, a 401 refuses that token, not the session the client may hold: no refresh, no retry.
  const byToken = (body: { mfaToken?: string }) => (body.mfaToken === undefined ? {} : { retry: false });
  const signIn = async (operation: 'verifyMfa' | 'confirmTotp', body: { mfaToken?: string }) => {
    const { data, receivedAt } = await requests.exchange(
      operation,
      { body },
      { expect: session.isTokenResponse, ...byToken(body) },
    );
    return { data, state: await session.signedIn(data as TokenResponse, receivedAt) };
  };
  // No refresh and retry after a 401 (`retry: false`): that refresh would wait for this renewal.
  const reauthenticate = (body: ReauthenticateRequest) =>
    session.renew(() =>
      requests.exchange('reauthenticate', { body }, { expect: session.isTokenResponse, retry: false }),
    );

  return {
    verifyMfa: async (body) => (await signIn('verifyMfa', body)).state,
    setupTotp: async (body = {}) => {
      const { data } = await requests.exchange('setupTotp', { body }, byToken(body));
      return { secret: data.secret, otpauthUri: data.otpauthUri };
    },
    async confirmTotp(body) {
      if (body.mfaToken !== undefined) {
        const { data, state } = await signIn('confirmTotp', body);
        return { recoveryCodes: (data as { recoveryCodes: string[] | null }).recoveryCodes, state };
      }
      const { data } = await requests.exchange('confirmTotp', { body });
      return { recoveryCodes: data.recoveryCodes, state: null };
    },
    async disableTotp() {
      await requests.exchange('disableTotp', {});
    },
    regenerateRecoveryCodes: async () =>
      // Checked: a list of codes, never `null`, on this route.
      (await requests.exchange('regenerateRecoveryCodes', {})).data.recoveryCodes as string[],
    reauthenticate,
    async withReauthentication(call, prompt) {
      const sentAt = prompts.generation;
      try {
        return await call();
      } catch (err) {
        if (!isTenantAuthClientError(err, 'reauthentication_required') || prompts.asked(err)) throw err;
        if (!(await prompts.ask(err, prompt, sentAt))) throw err;
        return call();
      }
    },
  };
}
