/**
 * A tenant's connection as the identity-provider port needs it: the client secret opened for this one
 * call (never stored or logged by the port).
 *
 * @example
 * const connection: IdentityProviderClient = { issuer, clientId, clientSecret, redirectUri };
 */
export interface IdentityProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `PUBLIC_URL + "/api/v1/auth/sso/callback"`: registered at the provider. */
  redirectUri: string;
}

/**
 * Who the provider says signed in, once the ID token passed every check (signature against the
 * provider's published keys, issuer, audience, nonce, expiry).
 *
 * @example
 * const identity: ProvidedIdentity = { issuer, subject: claims.sub, email: claims.email ?? null, emailVerified: null, amr: [] };
 */
export interface ProvidedIdentity {
  /** The `iss` of the ID token. */
  issuer: string;
  /** The `sub` of the ID token: what names the user at that issuer, for good. */
  subject: string;
  /** The `email` claim, as sent; `null` when there is none. */
  email: string | null;
  /** The `email_verified` claim; `null` when there is none. */
  emailVerified: boolean | null;
  /** The `amr` claim (`[]` when there is none). */
  amr: string[];
}

/**
 * What an exchange at the provider gave: the identity, or why not. `idp_error`: the provider answered
 * an error (on the redirect or at the token endpoint) or could not be reached; `invalid_id_token`: the
 * ID token failed a check.
 *
 * @example
 * const result: IdentityProviderResult = { ok: false, reason: 'invalid_id_token' };
 */
export type IdentityProviderResult =
  | { ok: true; identity: ProvidedIdentity }
  | { ok: false; reason: 'idp_error' | 'invalid_id_token'; detail?: string };

/**
 * The port of single sign-on's protocol work: core decides who may sign in, an implementation speaks
 * the protocol. The reference server fills it with `openid-client` (OpenID Connect, authorization code
 * with PKCE); a SAML implementation can fill the same three verbs (its `authorizationUrl` an
 * `AuthnRequest` redirect with `state` as `RelayState`, its `exchange` the checked assertion).
 *
 * @example
 * const identityProvider: IdentityProvider = createOpenIdClientProvider({ allowInsecureRequests: false });
 */
export interface IdentityProvider {
  /** Fetches and checks the issuer's metadata (discovery). Rejects when it is unreachable or invalid. */
  discover(issuer: string): Promise<void>;
  /** The URL to send the browser to: authorization code flow, PKCE `S256`, with this `state` and `nonce`. */
  authorizationUrl(
    client: IdentityProviderClient,
    request: { state: string; nonce: string; codeChallenge: string },
  ): Promise<string>;
  /**
   * Completes the flow from the URL the provider redirected back to (with its query): checks `state`,
   * exchanges the code with the PKCE verifier, validates the ID token (signature, issuer, audience,
   * `nonce`, expiry). Never rejects: a failure is a result.
   */
  exchange(
    client: IdentityProviderClient,
    callback: { url: URL; state: string; nonce: string; codeVerifier: string },
  ): Promise<IdentityProviderResult>;
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
