import * as oidc from 'openid-client';
import type {
  FieldError,
  IdentityProvider,
  IdentityProviderConnection,
  IdentityProviderResult,
} from 'tenant-auth-core';
import { createOutboundClient, type OutboundClient } from '../outbound/outbound-client.js';
import { providerFailureReason } from './oidc-failure.js';

/**
 * Options of {@link createOidcProvider}.
 *
 * @example
 * const options: OidcProviderOptions = { redirectUri: `${publicUrl}/api/v1/auth/sso/callback`, fetch: outbound.fetch };
 */
export interface OidcProviderOptions {
  /** The callback every tenant registers at its provider: `PUBLIC_URL + "/api/v1/auth/sso/callback"`. */
  redirectUri: string;
  /**
   * Let openid-client accept `http:` URLs (`OUTBOUND_ALLOW_LOOPBACK`; the outbound client still sends
   * them to loopback only). Default `false`: every endpoint, the authorization endpoint the browser is
   * sent to included, is `https:`.
   */
  allowInsecureRequests?: boolean;
  /**
   * The `fetch` of every request to a provider (discovery, token, keys): the server's outbound client's,
   * which connects to public addresses only (an issuer is an owner's input, and its discovery document
   * names the other endpoints: SSRF), and to loopback only with `OUTBOUND_ALLOW_LOOPBACK`. Default: a
   * client of its own, loopback open with `allowInsecureRequests` (the server passes its one client).
   */
  fetch?: OutboundClient['fetch'];
  /** Timeout of each request to a provider. Default 10. */
  timeoutSeconds?: number;
  /** How long a provider's discovered metadata is reused. Default 300. */
  cacheSeconds?: number;
}

/** The longest field an owner may send (an issuer, a client id or secret). */
const FIELD_MAX = 2048;

function text(input: Readonly<Record<string, unknown>>, field: string, errors: FieldError[]): string {
  const value = input[field];
  if (value === undefined || value === null || value === '') {
    errors.push({ field, code: 'required', message: `${field} is required.` });
  } else if (typeof value !== 'string') {
    errors.push({ field, code: 'invalid_type', message: `${field} must be a string.` });
  } else if (value.length > FIELD_MAX) {
    errors.push({
      field,
      code: 'too_long',
      message: `${field} must be at most ${FIELD_MAX} characters long.`,
    });
  } else return value;
  return '';
}

/** An https URL without query or fragment (http only on a loopback host, for tests and development). */
function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'The issuer must be an absolute URL.';
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return 'The issuer must be an https URL.';
  if (url.search || url.hash || url.username || url.password)
    return 'The issuer must have no query, fragment or credentials.';
  return undefined;
}

/** The connection input of OpenID Connect: `issuer`, `clientId`, `clientSecret`, each checked. */
function checkedInput(input: Readonly<Record<string, unknown>>) {
  const errors: FieldError[] = [];
  const issuer = text(input, 'issuer', errors);
  const clientId = text(input, 'clientId', errors);
  const clientSecret = text(input, 'clientSecret', errors);
  const problem = issuer ? issuerProblem(issuer) : undefined;
  if (problem) errors.push({ field: 'issuer', code: 'invalid_value', message: problem });
  return { errors, issuer, clientId, clientSecret };
}

/** Errors of the provider itself (it answered an error, or could not be reached), not of its ID token. */
const PROVIDER_ERRORS = new Set([
  'OAUTH_AUTHORIZATION_RESPONSE_ERROR',
  'OAUTH_RESPONSE_BODY_ERROR',
  'OAUTH_WWW_AUTHENTICATE_CHALLENGE',
]);

function classify(err: unknown): IdentityProviderResult {
  const code = (err as { code?: unknown })?.code;
  // The outbound client's reason (an SSRF refusal, a timeout) however openid-client wrapped it.
  const detail = `${typeof code === 'string' ? `${code}: ` : ''}${providerFailureReason(err)}`;
  // Anything else openid-client refused is about the token response: the ID token's signature (against
  // the provider's published keys), issuer, audience, nonce, expiry, or its shape.
  if (typeof code === 'string' && code.startsWith('OAUTH_') && !PROVIDER_ERRORS.has(code))
    return { ok: false, reason: 'invalid_id_token', detail };
  return { ok: false, reason: 'idp_error', detail };
}

/** The email claims of a set of claims: `email_verified` only when it is a boolean (a string says nothing). */
function emailOf(claims: Readonly<Record<string, unknown>>) {
  return {
    email: typeof claims.email === 'string' ? claims.email : null,
    emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : null,
  };
}

/**
 * The address of the ID token, or, when it carries no `email`, of the userinfo endpoint read with the
 * access token (OpenID Connect Core 5.3; many providers put the email there only), once its `sub` is the
 * ID token's (5.3.2: otherwise the answer is not about this user and must not be used).
 */
async function emailClaims(
  config: oidc.Configuration,
  claims: oidc.IDToken,
  accessToken: string,
): Promise<
  | { ok: true; email: string | null; emailVerified: boolean | null }
  | { ok: false; reason: 'invalid_id_token'; detail: string }
> {
  if (typeof claims.email === 'string') return { ok: true, ...emailOf(claims) };
  if (!config.serverMetadata().userinfo_endpoint) return { ok: true, email: null, emailVerified: null };
  // openid-client's own subject check throws an error that says less; this one names what was wrong.
  const userinfo = await oidc.fetchUserInfo(config, accessToken, oidc.skipSubjectCheck);
  if (userinfo.sub !== claims.sub)
    return {
      ok: false,
      reason: 'invalid_id_token',
      detail: "the userinfo endpoint answered about another subject than the ID token's",
    };
  return { ok: true, ...emailOf(userinfo) };
}

/**
 * The reference server's OpenID Connect provider on tenant-auth's sign-in port, with `openid-client` 6:
 * discovery (checked when an owner connects), the authorization code flow with PKCE (`S256`), `state`
 * (core's) and `nonce`, and the ID token's checks: issuer, audience, nonce, expiry, and its signature
 * against the keys the provider publishes (openid-client skips that unless its non-repudiation checks
 * are on: they are, for every configuration). A connection's settings are `{ clientId }`; its secret is
 * the client secret.
 *
 * @example
 * const auth = createTenantAuth({ ..., sso: { providers: [createOidcProvider({ redirectUri, fetch: outbound.fetch })], domainResolver, appUrl } });
 */
export function createOidcProvider(options: OidcProviderOptions): IdentityProvider {
  const { redirectUri } = options;
  const timeout = options.timeoutSeconds ?? 10;
  const cacheMs = (options.cacheSeconds ?? 300) * 1000;
  const cache = new Map<string, { config: Promise<oidc.Configuration>; until: number }>();

  // openid-client recognises `allowInsecureRequests` among these by identity, and then lets the
  // discovery request itself go over http too.
  const execute = [
    ...(options.allowInsecureRequests ? [oidc.allowInsecureRequests] : []),
    oidc.enableNonRepudiationChecks,
  ];
  // An issuer is an owner's input, and its discovery document names the token and key endpoints: without
  // the outbound client's fetch, an owner could make the server request addresses of its own network (SSRF).
  const fetch =
    options.fetch ?? createOutboundClient({ allowLoopback: options.allowInsecureRequests ?? false }).fetch;
  const network = { [oidc.customFetch]: fetch as oidc.CustomFetch };

  async function discover(issuer: string): Promise<void> {
    const config = await oidc.discovery(
      new URL(issuer),
      'tenant-auth-discovery-check',
      undefined,
      oidc.None(),
      {
        execute,
        timeout,
        ...network,
      },
    );
    const metadata = config.serverMetadata();
    if (metadata.issuer !== issuer && metadata.issuer !== issuer.replace(/\/+$/, ''))
      throw new Error('the discovery document names another issuer');
    if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri)
      throw new Error('the discovery document lacks an authorization, token or JWKS endpoint');
  }

  function configurationOf(connection: IdentityProviderConnection): Promise<oidc.Configuration> {
    const clientId = String(connection.settings.clientId);
    const clientSecret = connection.secret ?? '';
    const key = JSON.stringify([connection.issuer, clientId, clientSecret]);
    const cached = cache.get(key);
    if (cached && cached.until > Date.now()) return cached.config;
    const config = oidc.discovery(
      new URL(connection.issuer),
      clientId,
      { client_secret: clientSecret, redirect_uris: [redirectUri] },
      oidc.ClientSecretBasic(clientSecret),
      { execute, timeout, ...network },
    );
    cache.set(key, { config, until: Date.now() + cacheMs });
    // A failed discovery is not kept: the next sign-in tries again.
    config.catch(() => cache.delete(key));
    for (const [k, v] of cache) if (v.until <= Date.now()) cache.delete(k);
    return config;
  }

  return {
    protocol: 'oidc',
    returnsBy: 'query',
    stateParameter: 'state',
    checkInput: (input) => checkedInput(input).errors,
    async configure(input) {
      const { issuer, clientId, clientSecret } = checkedInput(input);
      try {
        await discover(issuer);
      } catch (err) {
        return {
          ok: false,
          errors: [
            {
              field: 'issuer',
              code: 'issuer_unreachable',
              message: "The issuer's discovery document could not be fetched or is invalid.",
            },
          ],
          detail: `discovery of ${issuer} failed: ${providerFailureReason(err)}`,
        };
      }
      return { ok: true, issuer, settings: { clientId }, secret: clientSecret };
    },
    describe: (connection) => ({
      issuer: connection.issuer,
      clientId: connection.settings.clientId,
      redirectUri,
    }),
    async start(connection, request) {
      const config = await configurationOf(connection);
      const nonce = oidc.randomNonce();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email profile',
        state: request.state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        // auth_time: the session is as recent as the authentication at the provider (Core 5.5.1).
        claims: JSON.stringify({ id_token: { auth_time: { essential: true } } }),
        ...(request.forceAuthentication ? { prompt: 'login', max_age: '0' } : {}),
      });
      return { url: url.href, kept: { nonce, codeVerifier } };
    },
    async finish(connection, { params, kept }) {
      // The provider answered an error (the user cancelled, the provider refused): nothing to exchange.
      if (params.error !== undefined)
        return { ok: false, reason: 'idp_error', detail: `the provider answered error=${params.error}` };
      try {
        const config = await configurationOf(connection);
        // The answer as it reached our redirect URI (whatever proxies the request went through).
        const url = new URL(redirectUri);
        url.search = new URLSearchParams(params).toString();
        const tokens = await oidc.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: kept.codeVerifier,
          expectedState: params.state,
          expectedNonce: kept.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) return { ok: false, reason: 'invalid_id_token', detail: 'no ID token' };
        const address = await emailClaims(config, claims, tokens.access_token);
        if (!address.ok) return address;
        return {
          ok: true,
          identity: {
            issuer: claims.iss,
            subject: claims.sub,
            email: address.email,
            emailVerified: address.emailVerified,
            amr: Array.isArray(claims.amr)
              ? claims.amr.filter((m): m is string => typeof m === 'string')
              : [],
            authTime: typeof claims.auth_time === 'number' ? new Date(claims.auth_time * 1000) : null,
          },
        };
      } catch (err) {
        return classify(err);
      }
    },
  };
}
