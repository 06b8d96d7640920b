import type { Services } from '../../mechanisms/services.js';
import type { ProviderDocument } from '../../ports/sso-ports.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { TenantAuthError } from '../../vocabulary/errors.js';
import type { RequestContext } from '../../vocabulary/records.js';
import { createSsoConnection } from './connection.js';
import { createDomains } from './domains.js';
import { createSsoSignIn } from './sign-in.js';
import type { ResolvedSso } from './sso-options.js';
import type {
  ConfigureSsoInput,
  Domain,
  SsoCallback,
  SsoCompletion,
  SsoConnection,
  SsoStart,
} from './sso-types.js';

/**
 * Single sign-on's part of `TenantAuth` (docs/http-api.md, "Single sign-on (OpenID Connect) per tenant"):
 * a tenant's email domains, its connection to an identity provider, and signing in through it.
 *
 * @example
 * const sso: TenantAuthSso = auth;
 * const { url, stateCookie } = await sso.startSso({ email: 'ada@example.com' });
 */
export interface TenantAuthSso {
  /**
   * Adds an email domain to the caller's tenant (owner, recent authentication), unverified, with the TXT
   * record that will prove it; the tenant's existing record when it has it already. Fails with
   * `validation_failed` (`domain`: `invalid_domain`: not a lower-case host name, or a public suffix),
   * `domain_taken` (another tenant verified it), `forbidden`, `reauthentication_required`, `unavailable`
   * (no `sso` option).
   */
  addDomain(claims: AccessClaims, input: { domain: string }, context?: RequestContext): Promise<Domain>;
  /** The caller's tenant's domains, oldest first (admin). */
  listDomains(claims: AccessClaims): Promise<Domain[]>;
  /**
   * Verifies a domain of the caller's tenant once its TXT record holds the value (owner, recent). Fails
   * with `domain_not_verified`, `domain_taken` (another tenant verified it first), `not_found`.
   */
  verifyDomain(claims: AccessClaims, name: string, context?: RequestContext): Promise<Domain>;
  /** Removes a domain of the caller's tenant (owner, recent). Fails with `not_found`. */
  removeDomain(claims: AccessClaims, name: string, context?: RequestContext): Promise<void>;
  /**
   * Connects (or reconnects) the caller's tenant to its identity provider (owner, recent), by the
   * protocol `input.protocol` names (`oidc` when none; one of `sso.providers`): the provider checks the
   * protocol's fields and may fetch the provider's discovery document or metadata first (OpenID Connect:
   * the issuer's); a secret (the client secret) is sealed and never returned. Turning `enforce` on
   * revokes the password and passkey sessions of the users it holds. Fails with `validation_failed`
   * (`protocol`: `invalid_value`; `issuer`: `issuer_unreachable`; other field codes), `forbidden`,
   * `reauthentication_required`, `unavailable` (no `sso` option).
   */
  configureSso(
    claims: AccessClaims,
    input: ConfigureSsoInput,
    context?: RequestContext,
  ): Promise<SsoConnection>;
  /** The caller's tenant's connection (admin), `null` when none; never a secret. */
  getSso(claims: AccessClaims): Promise<SsoConnection | null>;
  /** Removes the caller's tenant's connection (owner, recent). Fails with `not_found`. */
  removeSso(claims: AccessClaims, context?: RequestContext): Promise<void>;
  /**
   * Starts a sign-in through the identity provider of the tenant that verified the address's domain:
   * the provider's URL, and the sealed `sso_state` cookie value that binds a random `state`, the
   * tenant, `returnTo` and what the provider keeps (OpenID Connect: the nonce and PKCE verifier) to this
   * browser, with the cookie's `SameSite` (`None` when the provider posts back). `returnTo` is kept only
   * when it is of the application's origin. Fails with `not_found` (no verified domain with SSO for this
   * address).
   */
  startSso(input: { email: string; returnTo?: string | undefined }): Promise<SsoStart>;
  /**
   * Completes a sign-in from the provider's answer (`params`: the callback's query or form body, each
   * parameter once) and the `sso_state` cookie: a new session (`amr` `["sso"]`, plus `mfa` when the
   * provider's `amr` says so) and where to send the browser, or the error page (`invalid_state`,
   * `idp_error`, `invalid_id_token`, `domain_mismatch`, `email_taken`, `identity_mismatch`). Users are
   * identified by `(issuer, subject)`.
   */
  completeSso(input: SsoCallback, context?: RequestContext): Promise<SsoCompletion>;
  /**
   * Starts a re-authentication of the caller's session at its tenant's identity provider (any user of a
   * tenant with a connection; it is how an owner links its identity): as {@link startSso}, with the
   * provider told to authenticate afresh (OpenID Connect `prompt=login` and `max_age=0`). Its callback
   * ({@link completeSso}) checks that the provider authenticated the user's own identity (or, for a user
   * with none at the issuer, links it when the provider's verified address is the user's; otherwise
   * `identity_mismatch`), and for OpenID Connect that the ID token's `auth_time` is within
   * `reauthMaxAgeSeconds` (otherwise `invalid_id_token`); it then rotates the same session (`auth_time`
   * now, `amr` keeps `sso`). Fails with `not_found` (no connection), `invalid_token`.
   *
   * @example
   * const { url, stateCookie } = await auth.reauthenticateSso(claims, { returnTo: 'https://app.example.com/settings' });
   */
  reauthenticateSso(claims: AccessClaims, input?: { returnTo?: string | undefined }): Promise<SsoStart>;
  /**
   * The document the provider of `protocol` publishes for a tenant's connection (SAML: the service
   * provider's metadata); `null` when the tenant has no connection of that protocol, or the provider
   * publishes none. Public: no caller.
   *
   * @example
   * const doc = await auth.ssoProviderDocument(tenantId, 'saml');
   * if (doc) { ctx.type = doc.mediaType; ctx.body = doc.body; }
   */
  ssoProviderDocument(tenantId: string, protocol: string): Promise<ProviderDocument | null>;
}

const ssoUnavailable = () =>
  new TenantAuthError('unavailable', 'Single sign-on is not configured on this server.', {
    retryAfterSeconds: 3600,
  });

/**
 * @internal Single sign-on: a tenant's domains, its connection (of any protocol the server registered),
 * and signing in through it; `unavailable` for what needs the `sso` option when it is not set.
 */
export function createSso(services: Services, sso: ResolvedSso | undefined): TenantAuthSso {
  const requireRecent = async (claims: AccessClaims): Promise<void> => {
    await services.requireRecent(claims);
  };
  const domains = createDomains(services, sso?.domainResolver, requireRecent);
  return {
    ...domains,
    async addDomain(...args: Parameters<typeof domains.addDomain>) {
      if (!sso) throw ssoUnavailable();
      return domains.addDomain(...args);
    },
    async verifyDomain(...args: Parameters<typeof domains.verifyDomain>) {
      if (!sso) throw ssoUnavailable();
      return domains.verifyDomain(...args);
    },
    ...createSsoConnection(services, sso, requireRecent, ssoUnavailable),
    ...createSsoSignIn(services, sso),
  };
}
