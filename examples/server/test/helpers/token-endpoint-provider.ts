import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** How the next ID token is to be wrong (or `undefined`: right). */
export type Tampering = 'audience' | 'nonce' | 'expired' | 'unpublished-key' | 'issuer' | undefined;

/** What the next sign-in's ID token says. */
export interface NextToken {
  sub: string;
  email?: string;
  amr?: string[];
  /** The ID token's `email_verified` (default `true`; `null` leaves it out). */
  emailVerified?: unknown;
  /** The ID token's `auth_time` (seconds), when it is to carry one. */
  authTime?: number;
  /** What the userinfo endpoint answers for this sign-in's access token (default: `{ sub }` only). */
  userinfo?: Record<string, unknown>;
  tamper?: Tampering;
}

/**
 * A minimal OpenID Provider on loopback for the ID tokens a real provider never issues (another audience,
 * another nonce, expired, signed by a key it does not publish): discovery, an authorization endpoint
 * that answers at once with a code, a token endpoint that checks the client and PKCE, and a JWKS with
 * one published key. The server's code path is the real one (openid-client against this provider).
 */
export interface TokenEndpointProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the next code's ID token holds. */
  next: NextToken;
  /** The redirect back from the authorization URL (with `code` and `state`). */
  signIn(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * @param endpoints the discovery document's `token_endpoint` and `jwks_uri` when they are to be somewhere
 * else than this provider (an address the server must refuse to request).
 * @example const fake = await startTokenEndpointProvider(); fake.next = { sub: 's1', email, tamper: 'nonce' };
 */
export async function startTokenEndpointProvider(
  endpoints: { token_endpoint?: string; jwks_uri?: string } = {},
): Promise<TokenEndpointProvider> {
  const published = await generateKeyPair('RS256');
  const unpublished = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(published.publicKey)), kid: 'published', alg: 'RS256', use: 'sig' };
  const clientId = 'fake-client';
  const clientSecret = 'fake-client-secret-never-in-a-log-91c2';
  const codes = new Map<string, { nonce: string; challenge: string; redirectUri: string; next: NextToken }>();
  const accessTokens = new Map<string, NextToken>();
  const state = { next: { sub: 'nobody' } as NextToken };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: endpoints.token_endpoint ?? `${issuer}/token`,
        jwks_uri: endpoints.jwks_uri ?? `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (url.pathname === '/userinfo') {
      const next = accessTokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!next) return json(401, { error: 'invalid_token' });
      return json(200, next.userinfo ?? { sub: next.sub });
    }
    if (url.pathname === '/authorize') {
      const code = randomUUID();
      codes.set(code, {
        nonce: url.searchParams.get('nonce') ?? '',
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri: url.searchParams.get('redirect_uri') ?? '',
        next: state.next,
      });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(303, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const body = await bodyOf(req);
      // client_secret_basic: each part form-encoded (RFC 6749 2.3.1), then base64.
      const [id = '', secret = ''] = Buffer.from(
        (req.headers.authorization ?? '').replace(/^Basic /, ''),
        'base64',
      )
        .toString('utf8')
        .split(':')
        .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
      const issued = codes.get(body.get('code') ?? '');
      codes.delete(body.get('code') ?? '');
      const verifier = body.get('code_verifier') ?? '';
      if (
        id !== clientId ||
        secret !== clientSecret ||
        !issued ||
        createHash('sha256').update(verifier).digest('base64url') !== issued.challenge ||
        body.get('redirect_uri') !== issued.redirectUri
      ) {
        return json(400, { error: 'invalid_grant' });
      }
      const { next } = issued;
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({
        nonce: next.tamper === 'nonce' ? 'another-nonce' : issued.nonce,
        ...(next.email === undefined ? {} : { email: next.email }),
        ...(next.email === undefined || next.emailVerified === null
          ? {}
          : { email_verified: next.emailVerified ?? true }),
        ...(next.amr ? { amr: next.amr } : {}),
        ...(next.authTime === undefined ? {} : { auth_time: next.authTime }),
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'published' })
        .setIssuer(next.tamper === 'issuer' ? 'https://attacker.example' : issuer)
        .setSubject(next.sub)
        .setAudience(next.tamper === 'audience' ? 'another-client' : clientId)
        .setIssuedAt(next.tamper === 'expired' ? now - 7200 : now)
        .setExpirationTime(next.tamper === 'expired' ? now - 3600 : now + 300)
        .sign(next.tamper === 'unpublished-key' ? unpublished.privateKey : published.privateKey);
      const accessToken = randomUUID();
      accessTokens.set(accessToken, next);
      return json(200, {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 300,
        id_token: idToken,
      });
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    get next() {
      return state.next;
    },
    set next(value: NextToken) {
      state.next = value;
    },
    async signIn(authorizationUrl) {
      const res = await fetch(authorizationUrl, { redirect: 'manual' });
      return new URL(res.headers.get('location') ?? '');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
