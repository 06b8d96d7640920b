import * as oidc from 'openid-client';
import type { IdentityProvider, IdentityProviderClient, IdentityProviderResult } from 'tenant-auth-core';
import { publicOnlyFetch } from './public-fetch.js';

/**
 * Options of {@link createOpenIdClientProvider}.
 *
 * @example
 * const options: OpenIdClientProviderOptions = { allowInsecureRequests: false, timeoutSeconds: 10 };
 */
export interface OpenIdClientProviderOptions {
  /**
   * Allow `http:` issuers, and providers at loopback or private addresses (test providers on loopback
   * only; never in production). Default `false`: every request to a provider (discovery, token, keys)
   * goes to a public address only.
   */
  allowInsecureRequests?: boolean;
  /** Timeout of each request to a provider. Default 10. */
  timeoutSeconds?: number;
  /** How long a provider's discovered metadata is reused. Default 300. */
  cacheSeconds?: number;
}

/** Errors of the provider itself (it answered an error, or could not be reached), not of its ID token. */
const PROVIDER_ERRORS = new Set(['OAUTH_AUTHORIZATION_RESPONSE_ERROR', 'OAUTH_RESPONSE_BODY_ERROR']);

function classify(err: unknown): IdentityProviderResult {
  const code = (err as { code?: unknown })?.code;
  const detail = `${(err as Error)?.name ?? 'Error'}: ${typeof code === 'string' ? code : ''} ${(err as Error)?.message ?? ''}`;
  // Anything else openid-client refused is about the token response: the ID token's signature (against
  // the provider's published keys), issuer, audience, nonce, expiry, or its shape.
  if (typeof code === 'string' && code.startsWith('OAUTH_') && !PROVIDER_ERRORS.has(code))
    return { ok: false, reason: 'invalid_id_token', detail };
  return { ok: false, reason: 'idp_error', detail };
}

/**
 * The reference server's identity-provider port: OpenID Connect with `openid-client` 6. Discovery, the
 * authorization code flow with PKCE (`S256`), `state` and `nonce`, and the ID token's checks: issuer,
 * audience, nonce, expiry, and its signature against the keys the provider publishes (openid-client
 * skips that unless its non-repudiation checks are on: they are, for every configuration).
 *
 * @example
 * const auth = createTenantAuth({ ..., sso: { identityProvider: createOpenIdClientProvider(), domainResolver, redirectUri, appUrl } });
 */
export function createOpenIdClientProvider(options: OpenIdClientProviderOptions = {}): IdentityProvider {
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
  // this, an owner could make the server request addresses of its own network (SSRF).
  const network = options.allowInsecureRequests
    ? {}
    : { [oidc.customFetch]: publicOnlyFetch as oidc.CustomFetch };

  function configurationOf(client: IdentityProviderClient): Promise<oidc.Configuration> {
    const key = JSON.stringify([client.issuer, client.clientId, client.clientSecret]);
    const cached = cache.get(key);
    if (cached && cached.until > Date.now()) return cached.config;
    const config = oidc.discovery(
      new URL(client.issuer),
      client.clientId,
      { client_secret: client.clientSecret, redirect_uris: [client.redirectUri] },
      oidc.ClientSecretBasic(client.clientSecret),
      { execute, timeout, ...network },
    );
    cache.set(key, { config, until: Date.now() + cacheMs });
    // A failed discovery is not kept: the next sign-in tries again.
    config.catch(() => cache.delete(key));
    for (const [k, v] of cache) if (v.until <= Date.now()) cache.delete(k);
    return config;
  }

  return {
    async discover(issuer) {
      const config = await oidc.discovery(
        new URL(issuer),
        'tenant-auth-discovery-check',
        undefined,
        oidc.None(),
        { execute, timeout, ...network },
      );
      const metadata = config.serverMetadata();
      if (metadata.issuer !== issuer && metadata.issuer !== issuer.replace(/\/+$/, ''))
        throw new Error('the discovery document names another issuer');
      if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri)
        throw new Error('the discovery document lacks an authorization, token or JWKS endpoint');
    },
    async authorizationUrl(client, request) {
      const config = await configurationOf(client);
      return oidc
        .buildAuthorizationUrl(config, {
          redirect_uri: client.redirectUri,
          response_type: 'code',
          scope: 'openid email profile',
          state: request.state,
          nonce: request.nonce,
          code_challenge: request.codeChallenge,
          code_challenge_method: 'S256',
        })
        .toString();
    },
    async exchange(client, callback) {
      try {
        const config = await configurationOf(client);
        const tokens = await oidc.authorizationCodeGrant(config, callback.url, {
          pkceCodeVerifier: callback.codeVerifier,
          expectedState: callback.state,
          expectedNonce: callback.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) return { ok: false, reason: 'invalid_id_token', detail: 'no ID token' };
        return {
          ok: true,
          identity: {
            issuer: claims.iss,
            subject: claims.sub,
            email: typeof claims.email === 'string' ? claims.email : null,
            emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : null,
            amr: Array.isArray(claims.amr)
              ? claims.amr.filter((m): m is string => typeof m === 'string')
              : [],
          },
        };
      } catch (err) {
        return classify(err);
      }
    },
  };
}
