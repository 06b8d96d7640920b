// The request and response bodies of passkeys (docs/http-api.md, "Passkeys (WebAuthn)"). The WebAuthn
// options and responses are the JSON forms of WebAuthn Level 3, passed through as objects: core (through
// @simplewebauthn/server) checks them. Loads nothing but zod at run time, as the rest of the contract.
import { z } from 'zod';
import { id, isoDate } from './contract-parts.js';

/**
 * A passkey as its owner sees it: never its key or credential id.
 *
 * @example
 * const { passkey } = passkeyResponseSchema.parse(await res.json());
 */
export const passkeySchema = z
  .object({
    id: id(),
    name: z.string(),
    createdAt: isoDate(),
    lastUsedAt: isoDate()
      .nullable()
      .meta({ description: 'When it last signed the user in; `null` if never.' }),
  })
  .meta({ id: 'Passkey', description: 'A passkey of the caller.' });

/**
 * The body of `GET /auth/passkeys`.
 *
 * @example
 * const { passkeys } = passkeyListSchema.parse(await res.json());
 */
export const passkeyListSchema = z
  .object({ passkeys: z.array(passkeySchema) })
  .meta({ id: 'PasskeyList', description: "The caller's passkeys, oldest first." });

/** A credential of `excludeCredentials` or `allowCredentials`. */
const credentialDescriptor = () =>
  z.object({ id: z.string(), type: z.literal('public-key'), transports: z.array(z.string()).optional() });

/** The client extensions options ask for (`credProps`: whether the credential is discoverable). */
const extensionsSchema = () =>
  z
    .object({ credProps: z.boolean().optional() })
    .optional()
    .meta({ description: 'Client extension inputs.' });

/**
 * WebAuthn creation options (`PublicKeyCredentialCreationOptionsJSON`), for `navigator.credentials.create()`.
 *
 * @example
 * const optionsJSON = creationOptionsSchema.parse(await res.json());
 */
export const creationOptionsSchema = z
  .object({
    rp: z.object({ id: z.string().optional(), name: z.string() }),
    user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
    challenge: z.string(),
    pubKeyCredParams: z.array(z.object({ type: z.literal('public-key'), alg: z.number() })),
    timeout: z.number().optional(),
    excludeCredentials: z.array(credentialDescriptor()).optional(),
    authenticatorSelection: z
      .object({
        authenticatorAttachment: z.string().optional(),
        requireResidentKey: z.boolean().optional(),
        residentKey: z.string().optional(),
        userVerification: z.string().optional(),
      })
      .optional(),
    hints: z.array(z.string()).optional(),
    attestation: z.string().optional(),
    attestationFormats: z.array(z.string()).optional(),
    extensions: extensionsSchema(),
  })
  .meta({
    id: 'PasskeyCreationOptions',
    description: 'WebAuthn Level 3 `PublicKeyCredentialCreationOptionsJSON`.',
  });

/**
 * WebAuthn request options (`PublicKeyCredentialRequestOptionsJSON`), for `navigator.credentials.get()`.
 *
 * @example
 * const optionsJSON = requestOptionsSchema.parse(await res.json());
 */
export const requestOptionsSchema = z
  .object({
    challenge: z.string(),
    timeout: z.number().optional(),
    rpId: z.string().optional(),
    allowCredentials: z
      .array(credentialDescriptor())
      .optional()
      .meta({ description: 'The passkeys that may answer; absent for a passkey login (discoverable).' }),
    userVerification: z.string().optional(),
    hints: z.array(z.string()).optional(),
    extensions: extensionsSchema(),
  })
  .meta({
    id: 'PasskeyRequestOptions',
    description: 'WebAuthn Level 3 `PublicKeyCredentialRequestOptionsJSON`.',
  });

/** @internal A WebAuthn response (`RegistrationResponseJSON` or `AuthenticationResponseJSON`), as sent. */
export const credentialSchema = () =>
  z
    .looseObject({
      id: z.string(),
      rawId: z.string(),
      type: z.literal('public-key'),
      response: z.looseObject({ clientDataJSON: z.string() }),
    })
    .meta({
      description: "The browser's WebAuthn response, JSON form (`@simplewebauthn/browser` gives it).",
    });

/** @internal The request bodies of the passkey routes, from the fields the bodies share. */
export function passkeySchemas(fields: { mfaToken: z.ZodString; deviceInfo: z.ZodOptional<z.ZodString> }) {
  const { mfaToken, deviceInfo } = fields;
  return {
    passkeyRegistrationOptions: z.object({ mfaToken: mfaToken.optional() }).meta({
      id: 'PasskeyRegistrationOptionsRequest',
      description: 'The body of `POST /auth/passkeys/registration/options` (optional).',
    }),
    addPasskey: z
      .object({
        credential: credentialSchema(),
        name: z.string().max(200).optional().meta({ description: 'A name to recognise it by.' }),
        mfaToken: mfaToken.optional(),
        deviceInfo,
      })
      .meta({ id: 'AddPasskeyRequest', description: 'The body of `POST /auth/passkeys`.' }),
    passkeyLogin: z
      .object({ credential: credentialSchema(), deviceInfo })
      .meta({ id: 'PasskeyLoginRequest', description: 'The body of `POST /auth/passkeys/login`.' }),
    mfaPasskeyOptions: z
      .object({ mfaToken })
      .meta({ id: 'MfaPasskeyOptionsRequest', description: 'The body of `POST /auth/mfa/passkey/options`.' }),
  };
}
