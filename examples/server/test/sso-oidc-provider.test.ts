import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, type OutboundClient } from '../src/outbound/outbound-client.js';
import { createOidcProvider } from '../src/sso/oidc.js';
import { startTokenEndpointProvider, type TokenEndpointProvider } from './helpers/token-endpoint-provider.js';

/*
 * The OpenID Connect provider on tenant-auth's sign-in port, verb by verb, against a provider on
 * loopback (real discovery, token endpoint and keys): what core hands it and what it hands back.
 */

const REDIRECT_URI = 'http://localhost:4000/api/v1/auth/sso/callback';

describe('the OpenID Connect provider on the sign-in port', () => {
  let fake: TokenEndpointProvider;
  const fetched: string[] = [];
  // The fetch the server passes (its outbound client's), recording what goes through it.
  const outbound = createOutboundClient({ allowLoopback: true });
  const recordingFetch: OutboundClient['fetch'] = (url, init) => {
    fetched.push(new URL(url).pathname);
    return outbound.fetch(url, init);
  };
  const provider = createOidcProvider({
    redirectUri: REDIRECT_URI,
    allowInsecureRequests: true,
    fetch: recordingFetch,
  });

  beforeAll(async () => {
    fake = await startTokenEndpointProvider();
  });
  afterAll(async () => {
    await fake?.close();
    await outbound.close();
  });

  const connectionOf = () => ({
    tenantId: '01943b7e-0000-7000-8000-000000000001',
    protocol: 'oidc',
    issuer: fake.issuer,
    settings: { clientId: fake.clientId },
    secret: fake.clientSecret,
  });

  it('checks an owner’s input without I/O, then configures from discovery through the fetch it was given', async () => {
    expect(provider.checkInput({}).map((e) => `${e.field}:${e.code}`)).toEqual([
      'issuer:required',
      'clientId:required',
      'clientSecret:required',
    ]);
    expect(
      provider.checkInput({ issuer: 'http://idp.example', clientId: 'a', clientSecret: 'b' }),
    ).toMatchObject([{ field: 'issuer', code: 'invalid_value' }]);
    expect(fetched).toEqual([]);
    const input = { issuer: fake.issuer, clientId: fake.clientId, clientSecret: fake.clientSecret };
    expect(await provider.configure(input)).toEqual({
      ok: true,
      issuer: fake.issuer,
      settings: { clientId: fake.clientId },
      secret: fake.clientSecret,
    });
    expect(fetched).toContain('/.well-known/openid-configuration');
    expect(provider.describe(connectionOf())).toEqual({
      issuer: fake.issuer,
      clientId: fake.clientId,
      redirectUri: REDIRECT_URI,
    });
  });

  it('starts with core’s state, PKCE and a nonce it keeps; asks for a fresh login when told', async () => {
    const started = await provider.start(connectionOf(), { state: 'core-state', forceAuthentication: false });
    const url = new URL(started.url);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      state: 'core-state',
      nonce: started.kept.nonce,
      redirect_uri: REDIRECT_URI,
      code_challenge_method: 'S256',
    });
    expect(started.kept.codeVerifier).toBeTruthy();
    expect(url.searchParams.has('prompt')).toBe(false);
    const fresh = new URL(
      (await provider.start(connectionOf(), { state: 's', forceAuthentication: true })).url,
    );
    expect(fresh.searchParams.get('prompt')).toBe('login');
    expect(fresh.searchParams.get('max_age')).toBe('0');
  });

  it('finishes from the answer’s parameters and what it kept; an error answer is idp_error', async () => {
    fake.next = { sub: 'sub-ada', email: 'ada@acme.test', amr: ['pwd'] };
    const started = await provider.start(connectionOf(), {
      state: 'core-state-2',
      forceAuthentication: false,
    });
    const back = await fake.signIn(started.url);
    const params = Object.fromEntries(back.searchParams);
    expect(await provider.finish(connectionOf(), { params, kept: started.kept })).toEqual({
      ok: true,
      identity: {
        issuer: fake.issuer,
        subject: 'sub-ada',
        email: 'ada@acme.test',
        emailVerified: true,
        amr: ['pwd'],
        authTime: null,
      },
    });
    // The code is spent; another verifier would not have redeemed it either.
    const replay = await provider.finish(connectionOf(), { params, kept: started.kept });
    expect(replay).toMatchObject({ ok: false, reason: 'idp_error' });
    const denied = { error: 'access_denied', state: 'core-state-2' };
    expect(await provider.finish(connectionOf(), { params: denied, kept: started.kept })).toMatchObject({
      ok: false,
      reason: 'idp_error',
      detail: expect.stringContaining('access_denied'),
    });
  });
});
