// The bodies of single sign-on (docs/http-api.md, "Single sign-on (OpenID Connect) per tenant"):
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
 * The tenant's connection, OpenID Connect or SAML 2.0: never the client secret.
 *
 * @example
 * const { sso } = ssoResponseSchema.parse(await res.json());
 */
export const ssoConnectionSchema = z
  .object({
    protocol: z.enum(['oidc', 'saml']).meta({ description: 'The protocol of the connection.' }),
    issuer: z.string().optional().meta({ description: 'OpenID Connect: the issuer.' }),
    clientId: z.string().optional().meta({ description: 'OpenID Connect: the client ID.' }),
    entityId: z.string().optional().meta({ description: "SAML: the identity provider's entity ID." }),
    ssoUrl: z
      .string()
      .optional()
      .meta({ description: "SAML: the identity provider's HTTP-Redirect SingleSignOnService." }),
    certificates: z
      .array(
        z
          .object({
            fingerprintSha256: z.string().meta({ description: 'SHA-256 of the DER, lower-case hex.' }),
            notAfter: isoDate(),
          })
          .meta({ id: 'SamlCertificate', description: 'A signing certificate of the identity provider.' }),
      )
      .optional()
      .meta({
        description: "SAML: the identity provider's signing certificates (several during a rollover).",
      }),
    spEntityId: z
      .string()
      .optional()
      .meta({ description: "SAML: the service provider's entity ID (the audience) to register at the IdP." }),
    acsUrl: z
      .string()
      .optional()
      .meta({ description: 'SAML: the assertion consumer service URL to register at the IdP.' }),
    metadataUrl: z.string().optional().meta({ description: "SAML: the service provider's metadata." }),
    enforce: z.boolean().meta({
      description:
        'Password and passkey sign-ins of the users in the verified domains answer `sso_required` (owners excepted).',
    }),
    defaultRole: roleSchema,
    trustUnverifiedEmail: z.boolean().meta({
      description:
        'Addresses the provider does not say are verified (`email_verified` not `true`) are provisioned and linked.',
    }),
    trustProviderMfa: z.boolean().meta({
      description: "The provider's `mfa` in `amr` stands in for the user's own factor on recent routes.",
    }),
    redirectUri: z
      .string()
      .optional()
      .meta({ description: 'OpenID Connect: the callback URL to register at the provider.' }),
    updatedAt: isoDate(),
  })
  .meta({
    id: 'SsoConnection',
    description:
      "The tenant's connection: OpenID Connect (`issuer`, `clientId`, `redirectUri`) or SAML 2.0 (`entityId`, `ssoUrl`, `certificates`, `spEntityId`, `acsUrl`, `metadataUrl`).",
  });

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
        protocol: z
          .enum(['oidc', 'saml'])
          .optional()
          .meta({ description: '`oidc` (default) or `saml`; the fields below are of that protocol.' }),
        issuer: z
          .string()
          .max(2048)
          .optional()
          .meta({ description: 'OpenID Connect (required): the issuer identifier (https URL).' }),
        clientId: z.string().max(2048).optional().meta({ description: 'OpenID Connect (required).' }),
        clientSecret: z
          .string()
          .max(2048)
          .optional()
          .meta({ description: 'OpenID Connect (required): stored sealed; never returned.' }),
        metadataXml: z.string().optional().meta({
          description:
            "SAML: the identity provider's metadata XML (`invalid_metadata`); or `entityId`, `ssoUrl` and `certificates`.",
        }),
        entityId: z
          .string()
          .max(1024)
          .optional()
          .meta({ description: "SAML: the identity provider's entity ID." }),
        ssoUrl: z.string().max(2048).optional().meta({
          description:
            'SAML: the HTTP-Redirect SingleSignOnService (https; http only on loopback with `OUTBOUND_ALLOW_LOOPBACK`; `invalid_url`).',
        }),
        certificates: z.array(z.string()).optional().meta({
          description:
            'SAML: one or more PEM signing certificates (`invalid_certificate`: not a certificate, expired, or an RSA key under 2048 bits).',
        }),
        enforce: z.boolean().optional(),
        defaultRole: z.enum(['admin', 'member']).optional(),
        trustUnverifiedEmail: z.boolean().optional().meta({
          description:
            'Accept addresses the provider does not say are verified (Entra ID never sends `email_verified`). Not sent: `false`.',
        }),
        trustProviderMfa: z.boolean().optional().meta({
          description:
            "Let the provider's `mfa` in `amr` stand in for the user's own factor on recent routes. Not sent: `false`.",
        }),
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
    reauthenticateSso: z
      .object({
        returnTo: z.string().max(2048).optional().meta({
          description:
            'Where to land afterwards: a URL of the application (`APP_URL` origin); others are ignored.',
        }),
      })
      .meta({ id: 'ReauthenticateSsoRequest', description: 'The body of `POST /auth/sso/reauthenticate`.' }),
    /** The query of `GET /auth/sso/callback`. */
    ssoCallbackQuery: z
      .object({
        code: z.string().optional(),
        state: z.string().optional(),
        error: z.string().optional(),
      })
      .meta({ id: 'SsoCallbackQuery', description: "The provider's redirect." }),
    /** The form body of `POST /auth/sso/saml/{tenantId}/acs`. */
    samlAcsForm: z
      .object({
        SAMLResponse: z
          .string()
          .optional()
          .meta({ description: "The identity provider's response (base64)." }),
        RelayState: z.string().optional().meta({ description: 'The `state` the sign-in started with.' }),
      })
      .meta({ id: 'SamlAcsForm', description: "The identity provider's HTTP-POST binding." }),
  };
}
