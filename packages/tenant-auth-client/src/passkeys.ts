import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import type { Passkey } from './contract.generated.js';
import type { Requests } from './requests.js';
import type { TotpConfirmResult } from './second-factor.js';
import type { Session } from './session.js';
import type { SessionState } from './tokens.js';

/**
 * What {@link PasskeysClient.register} answers: the passkey, and, when it was registered with the
 * `mfaToken` of a `mfa_setup_required`, the session it signed in and the recovery codes (shown once).
 * The same shape as `confirmTotp`'s {@link TotpConfirmResult}: `state` and `recoveryCodes`.
 *
 * @example
 * const { passkey, recoveryCodes, state }: PasskeyRegistration = await client.passkeys.register({ mfaToken });
 * if (recoveryCodes) showOnce(recoveryCodes);
 * if (state) showHome(state.user);
 */
export interface PasskeyRegistration {
  /** The registered passkey. */
  passkey: Passkey;
  /** With a setup `mfaToken`: the session the enrolment signed in; otherwise `null`. */
  state: SessionState | null;
  /** 10 recovery codes when the enrolment made them (a setup `mfaToken` only); else `null`. */
  recoveryCodes: string[] | null;
}

/**
 * The passkey methods of the client (API 1.2, "Passkeys"), through the browser's WebAuthn
 * (`@simplewebauthn/browser`): each asks the server for options, lets the browser and the authenticator
 * answer them, and sends the answer back.
 *
 * As everywhere in the client, a method that may stop at a second-factor step (`login`,
 * `acceptInvitation`) answers a `SignInResult`; one that always ends signed in (`signIn`, `verifyMfa`,
 * `reauthenticate` here, like `client.verifyMfa`) answers the `SessionState`.
 *
 * @example
 * const client = createTenantAuthClient({ baseUrl: '/api/v1', mode: 'cookie' });
 * await client.passkeys.signIn();
 */
export interface PasskeysClient {
  /**
   * Makes a passkey and registers it: for the signed-in user (a recent authentication is needed), or
   * with the `mfaToken` of a `mfa_setup_required` (then the answer signs in).
   */
  register(options?: { name?: string; mfaToken?: string; deviceInfo?: string }): Promise<PasskeyRegistration>;
  /**
   * Signs in with a discoverable passkey, no email, no password. A passkey is a whole login (two
   * factors): no second step can follow, so this answers the `SessionState`, not a `SignInResult`.
   */
  signIn(options?: { deviceInfo?: string }): Promise<SessionState>;
  /**
   * Answers a `mfa_required` challenge with a passkey (`methods` has `passkey`), and signs in: the
   * `SessionState`, as `client.verifyMfa` answers for a code. An expired or used `mfaToken` is an
   * `invalid_token` (sign in again).
   */
  verifyMfa(mfaToken: string, options?: { deviceInfo?: string }): Promise<SessionState>;
  /**
   * Proves again who the user is with a passkey (recent authentication): new tokens for the same session
   * (reported as `refreshed`), as `client.reauthenticate` for a password and code.
   */
  reauthenticate(): Promise<SessionState>;
  /** `GET /auth/passkeys`: the user's passkeys. */
  list(): Promise<Passkey[]>;
  /** `DELETE /auth/passkeys/:id` (recent authentication). */
  remove(id: string): Promise<void>;
}

/** @internal The passkey methods on a client's requests and session. */
export function passkeysOf(requests: Requests, session: Session): PasskeysClient {
  const creationOptions = (value: unknown) => value as PublicKeyCredentialCreationOptionsJSON;
  const requestOptions = (value: unknown) => value as PublicKeyCredentialRequestOptionsJSON;
  const token = { expect: session.isTokenResponse };
  // With an `mfaToken`, a 401 refuses that token, not the session the client may hold: no refresh, no
  // retry (as `setupTotp` and `confirmTotp`).
  const byToken = (mfaToken: string | undefined) => (mfaToken === undefined ? {} : { retry: false });

  return {
    async register(options = {}) {
      const mfaToken = options.mfaToken === undefined ? {} : { mfaToken: options.mfaToken };
      const { data: optionsJSON } = await requests.exchange(
        'passkeyRegistrationOptions',
        { body: mfaToken },
        byToken(options.mfaToken),
      );
      const credential = await startRegistration({ optionsJSON: creationOptions(optionsJSON) });
      const body = {
        credential,
        ...mfaToken,
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.deviceInfo === undefined ? {} : { deviceInfo: options.deviceInfo }),
      };
      const { data, receivedAt } = await requests.exchange('addPasskey', { body }, byToken(options.mfaToken));
      if (!session.isTokenResponse(data)) return { passkey: data.passkey, state: null, recoveryCodes: null };
      const signedIn = await session.signedIn(data, receivedAt);
      const { recoveryCodes } = data as { recoveryCodes?: string[] | null };
      return { passkey: data.passkey, state: signedIn, recoveryCodes: recoveryCodes ?? null };
    },
    async signIn(options = {}) {
      const { data: optionsJSON } = await requests.exchange('passkeyLoginOptions', {});
      const credential = await startAuthentication({ optionsJSON: requestOptions(optionsJSON) });
      const body = {
        credential,
        ...(options.deviceInfo === undefined ? {} : { deviceInfo: options.deviceInfo }),
      };
      const { data, receivedAt } = await requests.exchange('passkeyLogin', { body }, token);
      return session.signedIn(data, receivedAt);
    },
    async verifyMfa(mfaToken, options = {}) {
      const { data: optionsJSON } = await requests.exchange('mfaPasskeyOptions', { body: { mfaToken } });
      const credential = await startAuthentication({ optionsJSON: requestOptions(optionsJSON) });
      const body = {
        mfaToken,
        method: 'passkey' as const,
        credential,
        ...(options.deviceInfo === undefined ? {} : { deviceInfo: options.deviceInfo }),
      };
      const { data, receivedAt } = await requests.exchange('verifyMfa', { body }, token);
      return session.signedIn(data, receivedAt);
    },
    async reauthenticate() {
      const { data: optionsJSON } = await requests.exchange('reauthenticationOptions', {});
      const credential = await startAuthentication({ optionsJSON: requestOptions(optionsJSON) });
      const body = { method: 'passkey' as const, credential };
      // As `client.reauthenticate`: the same session renewed (a `refreshed` change), in the refresh
      // queue, with no refresh and retry after a 401 (that refresh would wait for this renewal).
      return session.renew(() => requests.exchange('reauthenticate', { body }, { ...token, retry: false }));
    },
    async list() {
      return (await requests.exchange('listPasskeys', {})).data.passkeys;
    },
    async remove(id) {
      await requests.exchange('removePasskey', { params: { id } });
    },
  };
}
