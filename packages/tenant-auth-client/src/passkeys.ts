import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import type { Passkey } from './contract.generated.js';
import type { Requests } from './requests.js';
import type { Session } from './session.js';
import type { SessionState } from './tokens.js';

/**
 * What {@link PasskeysClient.register} answers: the passkey, and, when it was registered with the
 * `mfaToken` of a `mfa_setup_required`, the session it signed in and the recovery codes (shown once).
 *
 * @example
 * const { passkey, recoveryCodes }: PasskeyRegistration = await client.passkeys.register({ name: 'Laptop' });
 */
export interface PasskeyRegistration {
  passkey: Passkey;
  /** The new session (a setup `mfaToken` only); `null` otherwise. */
  session: SessionState | null;
  /** 10 recovery codes when the enrolment made them (a setup `mfaToken` only); else `null`. */
  recoveryCodes: string[] | null;
}

/**
 * The passkey methods of the client (API 1.2, "Passkeys"), through the browser's WebAuthn
 * (`@simplewebauthn/browser`): each asks the server for options, lets the browser and the authenticator
 * answer them, and sends the answer back.
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
  /** Signs in with a discoverable passkey, no email, no password: the same result as `login`. */
  signIn(options?: { deviceInfo?: string }): Promise<SessionState>;
  /** Answers a `mfa_required` challenge with a passkey (`methods` has `passkey`): the same result as `login`. */
  verifyMfa(mfaToken: string, options?: { deviceInfo?: string }): Promise<SessionState>;
  /** Proves again who the user is with a passkey (recent authentication), for the same session. */
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

  return {
    async register(options = {}) {
      const mfaToken = options.mfaToken === undefined ? {} : { mfaToken: options.mfaToken };
      const { data: optionsJSON } = await requests.exchange('passkeyRegistrationOptions', { body: mfaToken });
      const credential = await startRegistration({ optionsJSON: creationOptions(optionsJSON) });
      const body = {
        credential,
        ...mfaToken,
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.deviceInfo === undefined ? {} : { deviceInfo: options.deviceInfo }),
      };
      const { data, receivedAt } = await requests.exchange('addPasskey', { body });
      if (!session.isTokenResponse(data))
        return { passkey: data.passkey, session: null, recoveryCodes: null };
      const signedIn = await session.signedIn(data, receivedAt);
      const { recoveryCodes } = data as { recoveryCodes?: string[] | null };
      return { passkey: data.passkey, session: signedIn, recoveryCodes: recoveryCodes ?? null };
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
      const { data, receivedAt } = await requests.exchange('reauthenticate', { body }, token);
      return session.signedIn(data, receivedAt);
    },
    async list() {
      return (await requests.exchange('listPasskeys', {})).data.passkeys;
    },
    async remove(id) {
      await requests.exchange('removePasskey', { params: { id } });
    },
  };
}
