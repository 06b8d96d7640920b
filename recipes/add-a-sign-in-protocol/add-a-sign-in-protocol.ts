// Recipe: add a sign-in protocol (docs/extending.md, "Add a sign-in protocol").
//
// A toy protocol, "signed-link": the identity provider signs the browser's way back to us with an
// HMAC-SHA256 key it shares with the tenant. It is the whole of what a protocol brings: one
// `IdentityProvider` (this file) and one line where the server lists its providers. Core keeps the
// `state` (sealed in the `sso_state` cookie with the tenant, `returnTo` and what `start` keeps), the
// key (sealed at rest, opened for each call), the verified domains, linking and just-in-time users.
//
// Not for production: a real protocol brings its own standard's checks (OpenID Connect in
// examples/server/src/sso/oidc.ts).

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FieldError, IdentityProvider } from 'tenant-auth-core';

/** The protocol's name: what a connection stores and an owner sends as `protocol`. */
export const SIGNED_LINK = 'signed-link';

/** How long a signed link is good for, in seconds. */
const LINK_SECONDS = 120;

/** What the provider signs: everything the link carries, bound to this browser's `state` and `nonce`. */
function signature(
  key: string,
  p: { state: string; nonce: string; sub: string; email: string; exp: string },
) {
  const text = [p.state, p.nonce, p.sub, p.email, p.exp].join('\n');
  return createHmac('sha256', key).update(text).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The owner's input: the provider's https address and the shared key (at least 32 characters). */
function inputErrors(input: Readonly<Record<string, unknown>>): FieldError[] {
  const errors: FieldError[] = [];
  const { issuer, signingKey } = input;
  if (typeof issuer !== 'string' || !URL.canParse(issuer) || new URL(issuer).protocol !== 'https:')
    errors.push({ field: 'issuer', code: 'invalid_value', message: 'The issuer must be an https URL.' });
  if (typeof signingKey !== 'string' || signingKey.length < 32)
    errors.push({
      field: 'signingKey',
      code: 'too_short',
      message: 'The key must have 32 characters or more.',
    });
  return errors;
}

/**
 * The signed-link protocol on tenant-auth's sign-in port. `callbackUrl` is where the provider sends the
 * browser back: the server's `PUBLIC_URL + "/api/v1/auth/sso/callback"` (a `GET`, so `returnsBy` is
 * `query` and the state cookie `SameSite=Lax`).
 *
 * @example
 * const sso = { providers: [createOidcProvider({ redirectUri }), createSignedLinkProvider({ callbackUrl: redirectUri })], domainResolver, appUrl };
 */
export function createSignedLinkProvider(options: {
  callbackUrl: string;
  now?: () => Date;
}): IdentityProvider {
  const now = options.now ?? (() => new Date());
  return {
    protocol: SIGNED_LINK,
    returnsBy: 'query',
    stateParameter: 'state',
    checkInput: inputErrors,
    // Nothing to fetch: a protocol with metadata or discovery would fetch and check it here.
    configure: async (input) => ({
      ok: true,
      issuer: String(input.issuer),
      settings: {},
      secret: String(input.signingKey),
    }),
    describe: (connection) => ({ issuer: connection.issuer, callbackUrl: options.callbackUrl }),
    async start(connection, { state, forceAuthentication }) {
      // What must come back with the browser, sealed by core: the nonce the provider signs over.
      const nonce = randomBytes(16).toString('base64url');
      const url = new URL('/sign-in', connection.issuer);
      url.search = new URLSearchParams({
        state,
        nonce,
        return_to: options.callbackUrl,
        ...(forceAuthentication ? { fresh: '1' } : {}),
      }).toString();
      return { url: url.href, kept: { nonce } };
    },
    async finish(connection, { params, kept }) {
      if (params.error !== undefined)
        return { ok: false, reason: 'idp_error', detail: `the provider answered error=${params.error}` };
      const { state = '', sub = '', email = '', exp = '', sig = '' } = params;
      const nonce = kept.nonce ?? '';
      const expected = signature(connection.secret ?? '', { state, nonce, sub, email, exp });
      if (!sameText(sig, expected))
        return {
          ok: false,
          reason: 'invalid_id_token',
          detail: 'the link is not signed with the key, or not for this sign-in',
        };
      if (!(Number(exp) * 1000 > now().getTime()))
        return { ok: false, reason: 'invalid_id_token', detail: 'the link has expired' };
      // The key is the tenant's own: the provider it shares it with vouches for the address.
      return {
        ok: true,
        identity: { issuer: connection.issuer, subject: sub, email, emailVerified: true, amr: [] },
      };
    },
  };
}

/**
 * The other end, for tests and demos: the identity provider signing a link back for `user` from the
 * sign-in URL that `start` gave.
 *
 * @example
 * const back = signLink(new URL(started.url), key, { sub: 'u-1', email: 'ada@acme.test' });
 */
export function signLink(
  signIn: URL,
  key: string,
  user: { sub: string; email: string },
  now: Date = new Date(),
): URL {
  const state = signIn.searchParams.get('state') ?? '';
  const nonce = signIn.searchParams.get('nonce') ?? '';
  const exp = String(Math.floor(now.getTime() / 1000) + LINK_SECONDS);
  const back = new URL(signIn.searchParams.get('return_to') ?? '');
  const sig = signature(key, { state, nonce, ...user, exp });
  back.search = new URLSearchParams({ state, sub: user.sub, email: user.email, exp, sig }).toString();
  return back;
}
