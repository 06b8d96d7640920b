// The response bodies of the second factor, recent authentication and the tenant's security policy
// (docs/http-api.md, "Second factor: TOTP and recovery codes"). Loads nothing but zod at run time, as the rest of the contract.
import { z } from 'zod';
import { id, isoDate, roleSchema } from './contract-parts.js';

/**
 * The body of `POST /auth/mfa/totp/setup`: the secret to enter in an authenticator app (shown this once).
 *
 * @example
 * const { otpauthUri } = totpSetupSchema.parse(await res.json());
 * showQrCode(otpauthUri);
 */
export const totpSetupSchema = z
  .object({
    secret: z.string().meta({ description: 'The TOTP secret, base32; never shown again.' }),
    otpauthUri: z.string().meta({
      description: '`otpauth://totp/<issuer>:<email>?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`.',
    }),
  })
  .meta({ id: 'TotpSetup', description: 'The body of `POST /auth/mfa/totp/setup`.' });

/**
 * Recovery codes, shown once: `null` when the user kept the ones it had.
 *
 * @example
 * const { recoveryCodes } = recoveryCodesSchema.parse(await res.json());
 */
export const recoveryCodesSchema = z
  .object({
    recoveryCodes: z
      .array(z.string())
      .nullable()
      .meta({ description: 'Single-use codes, shown this once; `null` when the earlier ones stay.' }),
  })
  .meta({ id: 'RecoveryCodes', description: 'Recovery codes, shown once.' });

/**
 * The body of `GET /users/me`.
 *
 * @example
 * const me = meSchema.parse(await res.json());
 * if (!me.mfa.totp) suggestTwoFactor();
 */
export const meSchema = z
  .object({
    id: id(),
    email: z.string(),
    tenantId: id(),
    role: roleSchema,
    emailVerified: z.boolean(),
    createdAt: isoDate(),
    mfa: z
      .object({
        totp: z.boolean().meta({ description: 'Whether a TOTP factor is active.' }),
        passkeys: z.int().min(0).meta({ description: 'How many passkeys the user has.' }),
        recoveryCodesRemaining: z.int().min(0).meta({ description: 'Unused recovery codes.' }),
      })
      .meta({ id: 'MfaState', description: "The caller's second factors." }),
  })
  .meta({ id: 'Me', description: 'The body of `GET /users/me`.' });

/**
 * The security policy of a tenant.
 *
 * @example
 * const { requireMfa } = securityPolicySchema.parse(await res.json());
 */
export const securityPolicySchema = z
  .object({
    requireMfa: z.boolean().meta({ description: 'Whether every user of the tenant needs a second factor.' }),
  })
  .meta({ id: 'SecurityPolicy', description: 'The security policy of the tenant.' });

/**
 * JSON of `GET /users/me`.
 *
 * @example
 * const me = (await res.json()) as MeJson;
 */
export type MeJson = z.output<typeof meSchema>;
