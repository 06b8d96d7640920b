import type { TokenResponse } from '../claims.js';
import type { Role } from '../members/roles.js';
import type { DomainResolver, IdentityProvider } from './sso-ports.js';

/**
 * The `sso` option of `createTenantAuth`: the ports single sign-on works through, and where the browser
 * comes back to.
 *
 * @example
 * const sso: SsoOptions = {
 *   identityProvider: createOpenIdClientProvider(),
 *   domainResolver: new Resolver(),
 *   redirectUri: 'https://auth.example.com/api/v1/auth/sso/callback',
 *   appUrl: 'https://app.example.com',
 * };
 */
export interface SsoOptions {
  identityProvider: IdentityProvider;
  domainResolver: DomainResolver;
  /** The callback URL registered at every tenant's provider (`PUBLIC_URL + "/api/v1/auth/sso/callback"`). */
  redirectUri: string;
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
 * Input of {@link TenantAuth.configureSso}.
 *
 * @example
 * const input: ConfigureSsoInput = { issuer: 'https://login.example.com', clientId: 'abc', clientSecret, enforce: false };
 */
export interface ConfigureSsoInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
  enforce?: boolean | undefined;
  /** `member` (default) or `admin`. */
  defaultRole?: Exclude<Role, 'owner'> | undefined;
}

/**
 * A tenant's SSO connection as an owner or admin sees it: never the client secret.
 *
 * @example
 * const sso: SsoConnection | null = await auth.getSso(claims);
 */
export interface SsoConnection {
  issuer: string;
  clientId: string;
  enforce: boolean;
  defaultRole: Role;
  redirectUri: string;
  updatedAt: Date;
}

/**
 * What {@link TenantAuth.startSso} gives: the provider URL to send the browser to, and the `sso_state`
 * cookie's value (sealed: the state, nonce, PKCE verifier, tenant and `returnTo`), valid `maxAgeSeconds`.
 *
 * @example
 * const { url, stateCookie, maxAgeSeconds }: SsoStart = await auth.startSso({ email });
 */
export interface SsoStart {
  url: string;
  stateCookie: string;
  maxAgeSeconds: number;
}

/**
 * Why an SSO callback failed, as the browser is told (`APP_URL/sso-error?code=<code>`): the one list.
 *
 * @example
 * if ((SSO_ERROR_CODES as readonly string[]).includes(code)) showMessage(code);
 */
export const SSO_ERROR_CODES = [
  'invalid_state',
  'idp_error',
  'invalid_id_token',
  'domain_mismatch',
  'email_taken',
  'identity_mismatch',
] as const;

/**
 * One of {@link SSO_ERROR_CODES}.
 *
 * @example
 * const code: SsoErrorCode = 'domain_mismatch';
 */
export type SsoErrorCode = (typeof SSO_ERROR_CODES)[number];

/**
 * What {@link TenantAuth.completeSso} gives: a new session and where to send the browser, or the error
 * page to send it to.
 *
 * @example
 * const result: SsoCompletion = await auth.completeSso({ stateCookie, search: ctx.search });
 * ctx.redirect(result.redirectTo);
 */
export type SsoCompletion =
  | { ok: true; tokens: TokenResponse; redirectTo: string }
  | { ok: false; code: SsoErrorCode; redirectTo: string };
