// The bodies of single sign-on (API.md, Version 1.2, "Single sign-on (OpenID Connect) per tenant"):
// domains, the tenant's connection, and the start of a sign-in. Loads nothing but zod at run time.
import { z } from 'zod';
import { isoDate, roleSchema } from './contract-parts.js';

/**
 * An email domain of the tenant, and the TXT record that proves it.
 *
 * @example
 * const { verification } = domainSchema.parse(body.domain);
 */
export const domainSchema = z
  .object({
    name: z.string().meta({ description: 'The domain, a lower-case host name.' }),
    verified: z.boolean(),
    createdAt: isoDate(),
    verifiedAt: isoDate().nullable().meta({ description: 'When it was verified; `null` until then.' }),
    verification: z
      .object({
        type: z.literal('TXT'),
        name: z.string().meta({ description: '`_tenant-auth-challenge.<domain>`.' }),
        value: z.string().meta({ description: '`tenant-auth-domain-verification=<random>`.' }),
      })
      .meta({ id: 'DomainVerification', description: 'The DNS record that proves the domain.' }),
  })
  .meta({ id: 'Domain', description: 'An email domain of the tenant.' });

/**
 * The body of `POST /tenants/me/domains` and `POST /tenants/me/domains/{name}/verify`.
 *
 * @example
 * const { domain } = domainResponseSchema.parse(await res.json());
 */
export const domainResponseSchema = z
  .object({ domain: domainSchema })
  .meta({ id: 'DomainResponse', description: 'One domain.' });

/**
 * The body of `GET /tenants/me/domains`.
 *
 * @example
 * const { domains } = domainListSchema.parse(await res.json());
 */
export const domainListSchema = z
  .object({ domains: z.array(domainSchema) })
  .meta({ id: 'DomainList', description: "The tenant's domains, oldest first." });

/**
 * The tenant's OpenID Connect connection: never the client secret.
 *
 * @example
 * const { sso } = ssoResponseSchema.parse(await res.json());
 */
export const ssoConnectionSchema = z
  .object({
    issuer: z.string(),
    clientId: z.string(),
    enforce: z.boolean().meta({
      description:
        'Password and passkey sign-ins of the users in the verified domains answer `sso_required` (owners excepted).',
    }),
    defaultRole: roleSchema,
    redirectUri: z.string().meta({ description: 'The callback URL to register at the provider.' }),
    updatedAt: isoDate(),
  })
  .meta({ id: 'SsoConnection', description: "The tenant's OpenID Connect connection." });

/**
 * The body of `PUT` and `GET /tenants/me/sso`.
 *
 * @example
 * const { sso } = ssoResponseSchema.parse(await res.json());
 */
export const ssoResponseSchema = z
  .object({ sso: ssoConnectionSchema.nullable() })
  .meta({ id: 'SsoResponse', description: 'The connection, or `null` when there is none.' });

/**
 * The body of `POST /auth/sso/start`.
 *
 * @example
 * const { url } = ssoStartSchema.parse(await res.json());
 * location.assign(url);
 */
export const ssoStartSchema = z
  .object({ url: z.string().meta({ description: "The identity provider's authorization URL." }) })
  .meta({ id: 'SsoStart', description: 'Where to send the browser.' });

/** @internal The request bodies of single sign-on. */
export function ssoRequestSchemas(email: z.ZodString) {
  return {
    addDomain: z
      .object({
        domain: z.string().max(253).meta({ description: 'A lower-case host name, not a public suffix.' }),
      })
      .meta({ id: 'AddDomainRequest', description: 'The body of `POST /tenants/me/domains`.' }),
    configureSso: z
      .object({
        issuer: z.string().max(2048).meta({ description: 'The issuer identifier (https URL).' }),
        clientId: z.string().max(2048),
        clientSecret: z.string().max(2048).meta({ description: 'Stored sealed; never returned.' }),
        enforce: z.boolean().optional(),
        defaultRole: z.enum(['admin', 'member']).optional(),
      })
      .meta({ id: 'ConfigureSsoRequest', description: 'The body of `PUT /tenants/me/sso`.' }),
    startSso: z
      .object({
        email,
        returnTo: z.string().max(2048).optional().meta({
          description:
            'Where to land afterwards: a URL of the application (`APP_URL` origin); others are ignored.',
        }),
      })
      .meta({ id: 'StartSsoRequest', description: 'The body of `POST /auth/sso/start`.' }),
    /** The query of `GET /auth/sso/callback`. */
    ssoCallbackQuery: z
      .object({
        code: z.string().optional(),
        state: z.string().optional(),
        error: z.string().optional(),
      })
      .meta({ id: 'SsoCallbackQuery', description: "The provider's redirect." }),
  };
}
