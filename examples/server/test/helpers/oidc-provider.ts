import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** An account of the test provider: its `sub` and the email the ID token carries. */
export interface TestAccount {
  email: string;
  emailVerified?: boolean;
}

/** panva's oidc-provider, on loopback, with one confidential client and accounts the test fills. */
export interface TestOpenIdProvider {
  /** `http://127.0.0.1:<port>`: the issuer. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts, by `sub`. */
  accounts: Map<string, TestAccount>;
  /**
   * Goes through the provider's own login and consent pages (oidc-provider's development interactions)
   * as `sub`, from the authorization URL to the redirect back: returns the redirect's URL (with `code`
   * and `state`, or `error`).
   */
  signIn(authorizationUrl: string, sub: string): Promise<URL>;
  close(): Promise<void>;
}

/** A cookie jar good enough for one provider on one host. */
function jar() {
  const cookies = new Map<string, string>();
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    store(res: Response) {
      for (const raw of res.headers.getSetCookie()) {
        const [pair = ''] = raw.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
    },
  };
}

/**
 * Starts oidc-provider with a client whose redirect URI is `redirectUri` (`PUBLIC_URL` +
 * `/api/v1/auth/sso/callback`), PKCE required, and the email claims in the ID token; with
 * `{ providerDefaults: true }` oidc-provider's default `conformIdTokenClaims`, which puts the claims a
 * scope asks for in the userinfo answer only (the ID token then has no `email`).
 *
 * @example
 * const op = await startOpenIdProvider('http://localhost:4000/api/v1/auth/sso/callback');
 */
export async function startOpenIdProvider(
  redirectUri: string,
  options: { providerDefaults?: boolean } = {},
): Promise<TestOpenIdProvider> {
  const accounts = new Map<string, TestAccount>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'tenant-auth-test';
  const clientSecret = 'a-client-secret-that-must-never-leak-7f3a9c';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    ...(options.providerDefaults ? {} : { conformIdTokenClaims: false }),
    cookies: { keys: ['test-cookie-key-not-a-secret'] },
    pkce: { required: () => true },
    // The claims parameter, so that the ID token carries the `auth_time` the server asks for (at its
    // defaults oidc-provider ignores the request, and a sign-in is then never recent).
    features: { devInteractions: { enabled: true }, claimsParameter: { enabled: !options.providerDefaults } },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        async claims() {
          return { sub, email: account.email, email_verified: account.emailVerified ?? true };
        },
      };
    },
  });
  provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error', err));
  server.on('request', provider.callback());

  async function signIn(authorizationUrl: string, sub: string): Promise<URL> {
    const cookies = jar();
    let url = new URL(authorizationUrl);
    let form: { action: string; body: string } | undefined;
    for (let step = 0; step < 12; step++) {
      const res = form
        ? await fetch(new URL(form.action, issuer), {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie: cookies.header(), 'content-type': 'application/x-www-form-urlencoded' },
            body: form.body,
          })
        : await fetch(url, { redirect: 'manual', headers: { cookie: cookies.header() } });
      form = undefined;
      cookies.store(res);
      const location = res.headers.get('location');
      if (location) {
        url = new URL(location, issuer);
        if (url.origin !== issuer) return url; // back to the relying party
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (!action)
        throw new Error(`oidc-provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1] ?? 'consent';
      const fields: Record<string, string> =
        prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt };
      form = { action: action.replace(/&amp;/g, '&'), body: new URLSearchParams(fields).toString() };
    }
    throw new Error('oidc-provider: too many steps');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signIn,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
