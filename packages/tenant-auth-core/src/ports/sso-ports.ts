import type { FieldError } from '../vocabulary/errors.js';
import type { SsoErrorCode } from '../vocabulary/sso-error-codes.js';

/**
 * A protocol's own settings of a connection, as stored (JSON: strings, numbers, booleans, `null`, and
 * arrays and objects of them). OpenID Connect keeps its `clientId` here; SAML its SSO URL and
 * certificates. Never a secret: that is sealed apart.
 *
 * @example
 * const settings: SsoSettings = { clientId: 'tenant-auth' };
 */
export type SsoSettings = { readonly [field: string]: unknown };

/**
 * A tenant's connection as an {@link IdentityProvider} gets it for one call: the secret opened for this
 * call only (never stored, logged or returned by the provider).
 *
 * @example
 * const connection: IdentityProviderConnection = { tenantId, protocol: 'oidc', issuer, settings: { clientId }, secret };
 */
export interface IdentityProviderConnection {
  tenantId: string;
  /** The provider's `protocol`. */
  protocol: string;
  /** What names this connection's identities: the OpenID Connect issuer, the SAML IdP's entity ID. */
  issuer: string;
  settings: SsoSettings;
  /** The secret {@link ProviderConfiguration} asked core to seal, opened; `null` when there is none. */
  secret: string | null;
}

/**
 * What {@link IdentityProvider.configure} gives: what to store (the `issuer`, the protocol's settings,
 * and a secret core seals for the tenant), or why not (field errors, and words for the log).
 *
 * @example
 * const configured: ProviderConfiguration = { ok: true, issuer, settings: { clientId }, secret: clientSecret };
 */
export type ProviderConfiguration =
  | { ok: true; issuer: string; settings: SsoSettings; secret: string | null }
  | { ok: false; errors: FieldError[]; detail?: string };

/**
 * What {@link IdentityProvider.start} gives: where to send the browser, and what must come back to
 * `finish` with the browser (sealed in the `sso_state` cookie, never shown to the provider as is):
 * OpenID Connect's nonce and PKCE verifier, SAML's request `ID`.
 *
 * @example
 * const started: ProviderStart = { url: authorizationUrl.href, kept: { nonce, codeVerifier } };
 */
export interface ProviderStart {
  url: string;
  kept: Readonly<Record<string, string>>;
}

/**
 * Who the provider says signed in, once its answer passed every check of the protocol (OpenID Connect:
 * the ID token's signature against the provider's published keys, issuer, audience, nonce, expiry).
 *
 * @example
 * const identity: ProvidedIdentity = { issuer, subject: claims.sub, email: claims.email ?? null, emailVerified: null, amr: [] };
 */
export interface ProvidedIdentity {
  /** Who vouches: the ID token's `iss`; a SAML assertion's `Issuer`. */
  issuer: string;
  /** What names the user at that issuer, for good: the ID token's `sub`; SAML's `NameID`. */
  subject: string;
  /** The address, as sent; `null` when there is none. */
  email: string | null;
  /** Whether the provider says the address is verified (`email_verified`); `null` when it does not say. */
  emailVerified: boolean | null;
  /** How the user authenticated at the provider (`amr`; `[]` when it does not say). */
  amr: string[];
  /** When the user last authenticated at the provider (`auth_time`), when it says. */
  authTime?: Date | null;
  /**
   * An ID the provider's answer may be accepted with once only (SAML: the assertion's `ID`): core marks
   * it used in the SSO store (`useOnce`, kind `assertion`, shared by every instance) until `expiresAt`
   * and refuses it a second time (`invalid_response`), or when the store keeps no such marks.
   */
  oneTimeId?: { id: string; expiresAt: Date } | undefined;
}

/**
 * A document a provider publishes for a tenant's connection (SAML: the service provider's metadata):
 * its media type and text.
 *
 * @example
 * const doc: ProviderDocument = { mediaType: 'application/samlmetadata+xml', body: xml };
 */
export interface ProviderDocument {
  mediaType: string;
  body: string;
}

/**
 * Why a provider refused an answer: one of {@link SSO_ERROR_CODES} that the provider's checks (not
 * core's rules) give. `idp_error`: the provider answered an error or could not be reached;
 * `invalid_id_token`: its token or assertion failed a check; `invalid_state`: the answer names no
 * request of this browser.
 *
 * @example
 * const reason: ProviderFailure = 'invalid_id_token';
 */
export type ProviderFailure = Exclude<
  SsoErrorCode,
  | 'domain_mismatch'
  | 'email_taken'
  | 'identity_mismatch'
  | 'email_not_verified'
  | 'link_required'
  | 'account_disabled'
>;

/**
 * What {@link IdentityProvider.finish} gives: the identity, or why not with the reason in words for the
 * log (`detail`: never a token or secret).
 *
 * @example
 * const result: IdentityProviderResult = { ok: false, reason: 'invalid_id_token', detail: 'the ID token has expired' };
 */
export type IdentityProviderResult =
  | { ok: true; identity: ProvidedIdentity }
  | { ok: false; reason: ProviderFailure; detail?: string };

/**
 * The port of one sign-in protocol (`docs/architecture.md`, "Single sign-on: the ports"): core decides
 * who may sign in and keeps the state; a provider speaks its protocol. The server registers one per
 * protocol in `sso.providers`, and each tenant's connection names its `protocol`. The reference server
 * fills it for OpenID Connect with `openid-client` (`examples/server/src/sso/oidc.ts`).
 *
 * Core owns what is the same for every protocol: a random `state` (bound to the browser by the sealed
 * `sso_state` cookie with the tenant, `returnTo`, what `start` kept, and 10 minutes), the client secret
 * sealed at rest, the verified domains, identities by `(issuer, subject)`, linking, just-in-time users,
 * `enforce` and the audit events. A provider does no storage.
 *
 * @example
 * const sso: SsoOptions = { providers: [createOidcProvider({ redirectUri })], domainResolver, appUrl };
 */
export interface IdentityProvider {
  /** The connection's `protocol` this provider serves (`'oidc'`, `'saml'`): lower case, one per server. */
  readonly protocol: string;
  /**
   * How the browser comes back with the answer: `query`, a redirect to a `GET` (the `sso_state` cookie
   * is `SameSite=Lax`); `form`, a cross-site `POST` such as SAML's HTTP-POST binding (the cookie is
   * `SameSite=None`, the only kind a browser sends on it).
   */
  readonly returnsBy: 'query' | 'form';
  /** The parameter of the answer that carries core's `state` back (`state`; SAML's `RelayState`). */
  readonly stateParameter: string;
  /**
   * Checks what an owner sent for this protocol (the body of `PUT /tenants/me/sso` beyond `protocol`,
   * `enforce` and `defaultRole`) without I/O: the field errors, `[]` when it is fine. Core calls it
   * before it knows the caller may configure, so it must not reach the network.
   */
  checkInput(input: Readonly<Record<string, unknown>>): FieldError[];
  /**
   * Configures a connection from input that passed `checkInput`, for an owner core has authorised: may
   * fetch and check the provider's discovery document or metadata. Never rejects: a failure is a result.
   */
  configure(input: Readonly<Record<string, unknown>>): Promise<ProviderConfiguration>;
  /**
   * The protocol's fields an owner or admin sees of a connection (OpenID Connect: `issuer`, `clientId`,
   * `redirectUri`): never a secret.
   */
  describe(connection: Omit<IdentityProviderConnection, 'secret'>): Record<string, unknown>;
  /**
   * Where to send the browser to sign in, carrying `state` (in `stateParameter`'s place), and what must
   * come back sealed. `forceAuthentication`: the provider must authenticate the user afresh (OpenID
   * Connect `prompt=login` and `max_age=0`; SAML `ForceAuthn`).
   */
  start(
    connection: IdentityProviderConnection,
    request: { state: string; forceAuthentication: boolean },
  ): Promise<ProviderStart>;
  /**
   * Checks the provider's answer (`params`: the callback's query or form body, each parameter sent once;
   * core has checked `state` already) against what `start` kept, and gives who signed in. Never rejects:
   * a failure is a result.
   */
  finish(
    connection: IdentityProviderConnection,
    response: { params: Readonly<Record<string, string>>; kept: Readonly<Record<string, string>> },
  ): Promise<IdentityProviderResult>;
  /**
   * Optional: the document the protocol publishes for a connection (SAML: the service provider's
   * metadata, `GET /auth/sso/saml/:tenantId/metadata`). Without I/O; never a secret.
   */
  document?(connection: Omit<IdentityProviderConnection, 'secret'>): ProviderDocument;
}

/**
 * The port of domain verification: the TXT records of a name, each as its strings (as `node:dns`'s
 * `resolveTxt` answers). Rejects when the name has none or the resolver cannot answer.
 *
 * @example
 * const resolver: DomainResolver = { resolveTxt: (name) => new Resolver().resolveTxt(name) };
 */
export interface DomainResolver {
  resolveTxt(name: string): Promise<string[][]>;
}
