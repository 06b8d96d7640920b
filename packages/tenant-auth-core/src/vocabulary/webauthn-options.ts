import type {
  PublicKeyCredentialCreationOptionsJSON as CreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON as RequestOptionsJSON,
} from '@simplewebauthn/server';

/**
 * The options of a passkey registration, in the JSON form of WebAuthn Level 3: what the browser passes
 * to `navigator.credentials.create()` (with `@simplewebauthn/browser`'s `startRegistration`).
 *
 * @example
 * const options: PublicKeyCredentialCreationOptionsJSON = await auth.passkeyRegistrationOptions({ claims });
 */
export type PublicKeyCredentialCreationOptionsJSON = CreationOptionsJSON;

/**
 * The options of a passkey sign-in, second factor or re-authentication, in the JSON form of WebAuthn
 * Level 3: what the browser passes to `navigator.credentials.get()` (`startAuthentication`).
 *
 * @example
 * const options: PublicKeyCredentialRequestOptionsJSON = await auth.passkeyLoginOptions();
 */
export type PublicKeyCredentialRequestOptionsJSON = RequestOptionsJSON;
