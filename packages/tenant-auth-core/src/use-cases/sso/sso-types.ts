import type { DomainResolver, IdentityProvider } from '../../ports/sso-ports.js';
import type { TokenResponse } from '../../vocabulary/claims.js';
import type { Role } from '../../vocabulary/roles.js';
import type { SsoErrorCode } from '../../vocabulary/sso-error-codes.js';

/**
 * The `sso` option of `createTenantAuth`: the sign-in protocols the server offers (one
 * {@link IdentityProvider} per `protocol`: the connection of each tenant names one), domain
 * verification's resolver, and the application the browser returns to.
 *
 * @example
 * const sso: SsoOptions = {
 *   providers: [createOidcProvider({ redirectUri: 'https://auth.example.com/api/v1/auth/sso/callback' })],
 *   domainResolver: new Resolver(),
 *   appUrl: 'https://app.example.com',
 * };
 */
export interface SsoOptions {
  /** The registry of protocols, keyed by each provider's `protocol` (one provider per protocol). */
  providers: readonly IdentityProvider[];
  domainResolver: DomainResolver;
  /** The web application: `returnTo` must be of its origin; errors go to `appUrl + "/sso-error"`. */
  appUrl: string;
}

/**
 * An email domain of the caller's tenant, and the TXT record that proves it.
 *
 * @example
 * const { verification }: Domain = await auth.addDomain(claims, { domain: 'example.com' });
 * console.log(`${verification.name} TXT "${verification.value}"`);
 */
export interface Domain {
  name: string;
  verified: boolean;
  createdAt: Date;
  /** `null` until verified. */
  verifiedAt: Date | null;
  verification: { type: 'TXT'; name: string; value: string };
}

/**
 * Input of {@link TenantAuthSso.configureSso}: the connection's `protocol`, what every protocol shares
 * (`enforce`, `defaultRole`), and the protocol's own fields, which its provider checks (OpenID Connect:
 * `issuer`, `clientId`, `clientSecret`).
 *
 * @example
 * const input: ConfigureSsoInput = { issuer: 'https://login.example.com', clientId: 'abc', clientSecret, enforce: false };
 */
export interface ConfigureSsoInput {
  /** A protocol of `sso.providers`; `'oidc'` when left out. */
  protocol?: string | undefined;
  enforce?: boolean | undefined;
  /** `member` (default) or `admin`. */
  defaultRole?: Exclude<Role, 'owner'> | undefined;
  /** Provision and link addresses the provider does not say are verified (`email_verified`); default `false`. */
  trustUnverifiedEmail?: boolean | undefined;
  /** Let the provider's `mfa` in `amr` satisfy *recent* routes for users with a factor; default `false`. */
  trustProviderMfa?: boolean | undefined;
  /** The protocol's own fields. */
  [field: string]: unknown;
}

/**
 * A tenant's SSO connection as an owner or admin sees it: its `protocol`, what every protocol shares,
 * and the fields its provider describes (OpenID Connect: `issuer`, `clientId`, `redirectUri`); never a
 * secret.
 *
 * @example
 * const sso: SsoConnection | null = await auth.getSso(claims);
 */
export interface SsoConnection {
  protocol: string;
  enforce: boolean;
  defaultRole: Role;
  /** Whether addresses the provider does not say are verified are accepted. */
  trustUnverifiedEmail: boolean;
  /** Whether the provider's `mfa` satisfies *recent* routes. */
  trustProviderMfa: boolean;
  updatedAt: Date;
  /** The protocol's own fields. */
  [field: string]: unknown;
}

/**
 * What {@link TenantAuthSso.startSso} gives: the provider URL to send the browser to, and the `sso_state`
 * cookie's value (sealed: the state, the tenant, `returnTo` and what the provider keeps, such as the
 * nonce and PKCE verifier), valid `maxAgeSeconds`, with the `SameSite` its protocol needs (`None` when
 * the provider posts the browser back across sites).
 *
 * @example
 * const { url, stateCookie, maxAgeSeconds, sameSite }: SsoStart = await auth.startSso({ email });
 */
export interface SsoStart {
  url: string;
  stateCookie: string;
  maxAgeSeconds: number;
  sameSite: 'Lax' | 'None';
}

/**
 * The provider's answer as it reached the callback: its parameters (the query of a redirect, or the
 * form body of a post, each parameter sent once) and the `sso_state` cookie.
 *
 * @example
 * const callback: SsoCallback = { stateCookie: ctx.cookies.get('sso_state'), params: { code, state } };
 */
export interface SsoCallback {
  stateCookie: string | undefined;
  params: Readonly<Record<string, string>>;
  /**
   * The tenant whose route the answer reached, when the route names one (SAML's ACS,
   * `/auth/sso/saml/:tenantId/acs`): a state started for another tenant is `invalid_state`.
   */
  tenantId?: string | undefined;
}

/**
 * What {@link TenantAuthSso.completeSso} gives: a new session and where to send the browser, or the error
 * page to send it to.
 *
 * @example
 * const result: SsoCompletion = await auth.completeSso({ stateCookie, params: { code, state } });
 * ctx.redirect(result.redirectTo);
 */
export type SsoCompletion =
  | { ok: true; tokens: TokenResponse; redirectTo: string }
  | { ok: false; code: SsoErrorCode; redirectTo: string };
