import { describe, expect, it } from 'vitest';
import { createTenantAuth } from '../../facade/create-tenant-auth.js';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { IdentityProvider } from '../../ports/sso-ports.js';
import {
  FakeIdentityProvider,
  fieldCodes,
  owner,
  quiet,
  setup,
  ssoSignIn,
  ssoTenant,
  verify,
} from '../../testing/test-helpers.js';
import { isTenantAuthError } from '../../vocabulary/errors.js';

/*
 * The sign-in seam (`docs/architecture.md`, "Single sign-on: the ports"): providers registered by
 * protocol, a connection that names its protocol, and the state core keeps whatever the protocol.
 */

const SECRET = 'sso-client-secret-for-unit-tests';

/** Core with the fake `oidc` provider and a `toy` one that posts the browser back with `RelayState`. */
function twoProtocols() {
  const toy = new FakeIdentityProvider('toy', 'form', 'RelayState');
  return { ...setup({}, [toy]), toy };
}

/** A tenant of `domain` connected through the `toy` protocol. */
async function toyTenant(t: ReturnType<typeof twoProtocols>, email: string) {
  const ada = await owner(t.auth, email);
  await ssoTenant(t, ada.claims, email.split('@')[1] ?? '');
  await t.auth.configureSso(ada.claims, {
    protocol: 'toy',
    issuer: 'https://idp.acme.test',
    clientId: 'toy-client',
    clientSecret: SECRET,
  });
  return ada;
}

describe('single sign-on of several protocols (core, fake providers)', () => {
  it('a connection names its protocol: its provider configures, describes, starts and finishes it', async () => {
    const t = twoProtocols();
    const ada = await toyTenant(t, 'ada@acme.test');
    expect(await t.auth.getSso(ada.claims)).toEqual({
      protocol: 'toy',
      issuer: 'https://idp.acme.test',
      clientId: 'toy-client',
      redirectUri: 'https://auth.acme.test/api/v1/auth/sso/callback',
      enforce: false,
      defaultRole: 'member',
      trustUnverifiedEmail: false,
      trustProviderMfa: false,
      updatedAt: t.clock.now(),
    });
    const stored = await t.stores.sso.findConnection(ada.tenant.id);
    expect(stored).toMatchObject({ protocol: 'toy', settings: { clientId: 'toy-client' } });
    expect(JSON.stringify(stored)).not.toContain(SECRET);

    t.toy.signsIn('sub-bob', 'bob@acme.test');
    const started = await t.auth.startSso({ email: 'bob@acme.test' });
    // The toy provider posts the browser back across sites: only a SameSite=None cookie goes with it.
    expect(started).toMatchObject({ url: expect.stringContaining('client_id=toy-client'), sameSite: 'None' });
    expect(t.idp.lastRequest).toBeUndefined();
    expect(t.toy.lastRequest).toMatchObject({ forceAuthentication: false });
    const state = t.toy.lastRequest?.state ?? '';
    // The state comes back in the protocol's own parameter, not another.
    expect(await t.auth.completeSso({ stateCookie: started.stateCookie, params: { state } })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
    const done = await t.auth.completeSso({
      stateCookie: started.stateCookie,
      params: { RelayState: state },
    });
    expect(done).toMatchObject({ ok: true, tokens: { user: { email: 'bob@acme.test' } } });
    // The provider got the secret core sealed, opened, for each call.
    expect(t.toy.seen.map((c) => c.secret)).toEqual([SECRET, SECRET]);
    expect(t.toy.seen[0]).toMatchObject({ tenantId: ada.tenant.id, protocol: 'toy' });
  });

  it('a provider that redirects back gets a SameSite=Lax state cookie', async () => {
    const t = twoProtocols();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    expect((await t.auth.startSso({ email: 'bob@acme.test' })).sameSite).toBe('Lax');
    expect(t.toy.lastRequest).toBeUndefined();
  });

  it('refuses a protocol the server does not offer, before storing anything or asking a provider', async () => {
    const t = twoProtocols();
    const ada = await owner(t.auth, 'ada@acme.test');
    await verify(t, 'ada@acme.test');
    const input = { issuer: 'https://idp.acme.test', clientId: 'a', clientSecret: 'b' };
    for (const protocol of ['saml', 42, 'OIDC'])
      expect(await fieldCodes(t.auth.configureSso(ada.claims, { ...input, protocol } as never))).toEqual([
        'protocol:invalid_value',
      ]);
    // Each provider checks its own fields; core checks the shared ones.
    expect(
      await fieldCodes(
        t.auth.configureSso(ada.claims, { protocol: 'toy', issuer: 'x', enforce: 'yes' } as never),
      ),
    ).toEqual(['clientId:required', 'clientSecret:required', 'issuer:invalid_value', 'enforce:invalid_type']);
    expect(await t.auth.getSso(ada.claims)).toBeNull();
    expect(t.toy.lastRequest).toBeUndefined();
  });

  it('a sign-in started before its connection changed protocol does not finish', async () => {
    const t = twoProtocols();
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    t.idp.signsIn('sub-bob', 'bob@acme.test');
    t.toy.signsIn('sub-bob', 'bob@acme.test');
    const started = await t.auth.startSso({ email: 'bob@acme.test' });
    const state = t.idp.lastRequest?.state ?? '';
    await t.auth.configureSso(ada.claims, {
      protocol: 'toy',
      issuer: 'https://idp.acme.test',
      clientId: 'toy-client',
      clientSecret: SECRET,
    });
    const answer = { stateCookie: started.stateCookie, params: { code: 'c', state, RelayState: state } };
    expect(await t.auth.completeSso(answer)).toMatchObject({ ok: false, code: 'idp_error' });
    expect(t.toy.seen).toEqual([]);
    expect(await t.stores.users.findByEmail('bob@acme.test')).toBeNull();
  });

  it('a provider that throws is an idp_error; one without a secret stores none', async () => {
    const bare: IdentityProvider = {
      protocol: 'bare',
      returnsBy: 'query',
      stateParameter: 'state',
      checkInput: () => [],
      configure: async () => ({ ok: true, issuer: 'https://idp.acme.test', settings: {}, secret: null }),
      describe: () => ({}),
      start: async (connection, { state }) => ({
        url: `https://idp.acme.test/?state=${state}&s=${connection.secret}`,
        kept: {},
      }),
      finish: async () => {
        throw new Error('the provider broke');
      },
    };
    const t = setup({}, [bare]);
    const ada = await owner(t.auth, 'ada@acme.test');
    await ssoTenant(t, ada.claims, 'acme.test');
    await t.auth.configureSso(ada.claims, { protocol: 'bare' });
    expect((await t.stores.sso.findConnection(ada.tenant.id))?.sealedSecret).toBeNull();
    const started = await t.auth.startSso({ email: 'bob@acme.test' });
    expect(started.url).toContain('s=null');
    const state = new URL(started.url).searchParams.get('state') ?? '';
    expect(await t.auth.completeSso({ stateCookie: started.stateCookie, params: { state } })).toMatchObject({
      ok: false,
      code: 'idp_error',
    });
  });

  it('keeps the state of every protocol: a cookie whose state was sealed for another sign-in is refused', async () => {
    const t = twoProtocols();
    await toyTenant(t, 'ada@acme.test');
    t.toy.signsIn('sub-cat', 'cat@acme.test');
    const first = await t.auth.startSso({ email: 'cat@acme.test' });
    const firstState = t.toy.lastRequest?.state ?? '';
    const second = await t.auth.startSso({ email: 'cat@acme.test' });
    expect(first.stateCookie).not.toBe(second.stateCookie);
    expect(
      await t.auth.completeSso({ stateCookie: second.stateCookie, params: { RelayState: firstState } }),
    ).toMatchObject({ ok: false, code: 'invalid_state' });
    expect(await ssoSignIn(t, 'cat@acme.test')).toMatchObject({ ok: false, code: 'invalid_state' });
  });
});

describe('the sso option: a registry of providers', () => {
  const base = {
    stores: createMemoryStores(),
    accessToken: { secret: 'access-secret-access-secret-0123456789' },
    refreshSecret: 'refresh-secret-refresh-secret-0123456789',
    rateLimit: false as const,
    logger: quiet,
  };
  const domainResolver = { resolveTxt: async () => [] };
  const appUrl = 'https://app.acme.test';

  function problem(sso: unknown): string {
    try {
      createTenantAuth({ ...base, sso } as never);
    } catch (err) {
      if (isTenantAuthError(err, 'invalid_configuration')) return `${err.option}: ${err.message}`;
      throw err;
    }
    return 'accepted';
  }

  it('takes one provider per protocol, each a whole IdentityProvider', () => {
    const oidc = new FakeIdentityProvider();
    expect(
      problem({ providers: [oidc, new FakeIdentityProvider('toy', 'form')], domainResolver, appUrl }),
    ).toBe('accepted');
    expect(problem({ providers: [], domainResolver, appUrl })).toMatch(/^sso\.providers: .*non-empty list/);
    expect(problem({ providers: [oidc, new FakeIdentityProvider()], domainResolver, appUrl })).toMatch(
      /^sso\.providers\[1\]: .*protocol oidc twice/,
    );
    expect(problem({ providers: [{ ...oidc, protocol: 'OIDC' }], domainResolver, appUrl })).toMatch(
      /^sso\.providers\[0\]: .*protocol/,
    );
    expect(
      problem({
        providers: [Object.assign(new FakeIdentityProvider(), { returnsBy: 'post' })],
        domainResolver,
        appUrl,
      }),
    ).toMatch(/returnsBy/);
    const { finish: _finish, ...noFinish } = {
      ...oidc,
      checkInput: oidc.checkInput,
      configure: oidc.configure,
      describe: oidc.describe,
      start: oidc.start,
      finish: oidc.finish,
    };
    expect(problem({ providers: [noFinish], domainResolver, appUrl })).toMatch(/finish\(\)/);
    // 1.2's single provider names its replacement.
    expect(problem({ identityProvider: oidc, domainResolver, appUrl })).toMatch(
      /^sso\.identityProvider: .*sso\.providers/,
    );
  });
});

describe('what a form-posting protocol (SAML) needs of core', () => {
  it('an answer with a oneTimeId is accepted once per id, even through two states (the replay cache)', async () => {
    const t = twoProtocols();
    await toyTenant(t, 'ada@acme.test');
    const once = { id: '_assertion-1', expiresAt: new Date(t.clock.now().getTime() + 300_000) };
    const signIn = async () => {
      const started = await t.auth.startSso({ email: 'bob@acme.test' });
      t.toy.signsIn('sub-bob', 'bob@acme.test');
      if (t.toy.next.ok) t.toy.next.identity.oneTimeId = once;
      return t.auth.completeSso({
        stateCookie: started.stateCookie,
        params: { RelayState: t.toy.lastRequest?.state ?? '' },
      });
    };
    expect(await signIn()).toMatchObject({ ok: true });
    // Another state, the same assertion: a replay.
    expect(await signIn()).toMatchObject({ ok: false, code: 'invalid_response' });
    expect(
      await t.stores.sso.useOnce?.(
        {
          tenantId: (await t.stores.users.findByEmail('bob@acme.test'))?.tenantId ?? '',
          kind: 'assertion',
          id: once.id,
        },
        once.expiresAt,
      ),
    ).toBe(false);
  });

  it('a store without useOnce refuses an answer that must be used once (fails closed)', async () => {
    const stores = createMemoryStores();
    const { useOnce: _, ...sso } = stores.sso;
    const toy = new FakeIdentityProvider('toy', 'form', 'RelayState');
    const t = { ...setup({ stores: { ...stores, sso } }, [toy]), toy };
    await toyTenant(t, 'ada@acme.test');
    const started = await t.auth.startSso({ email: 'bob@acme.test' });
    toy.signsIn('sub-bob', 'bob@acme.test');
    if (toy.next.ok) toy.next.identity.oneTimeId = { id: '_a', expiresAt: new Date(Date.UTC(2027, 0, 1)) };
    expect(
      await t.auth.completeSso({
        stateCookie: started.stateCookie,
        params: { RelayState: toy.lastRequest?.state ?? '' },
      }),
    ).toMatchObject({ ok: false, code: 'invalid_response' });
  });

  it("a route of one tenant (the ACS) refuses another tenant's state (invalid_state)", async () => {
    const t = twoProtocols();
    const ada = await toyTenant(t, 'ada@acme.test');
    const started = await t.auth.startSso({ email: 'bob@acme.test' });
    t.toy.signsIn('sub-bob', 'bob@acme.test');
    const params = { RelayState: t.toy.lastRequest?.state ?? '' };
    expect(
      await t.auth.completeSso({ stateCookie: started.stateCookie, params, tenantId: 'another-tenant' }),
    ).toMatchObject({ ok: false, code: 'invalid_state' });
    // Refused before the state is used: the browser's own tenant's ACS still finishes it.
    expect(
      await t.auth.completeSso({ stateCookie: started.stateCookie, params, tenantId: ada.tenant.id }),
    ).toMatchObject({ ok: true });
  });

  it("ssoProviderDocument gives the provider's document for a connection of that protocol, else null", async () => {
    const t = twoProtocols();
    const ada = await toyTenant(t, 'ada@acme.test');
    expect(await t.auth.ssoProviderDocument(ada.tenant.id, 'toy')).toBeNull();
    (t.toy as IdentityProvider).document = (c) => ({ mediaType: 'text/plain', body: `sp of ${c.tenantId}` });
    expect(await t.auth.ssoProviderDocument(ada.tenant.id, 'toy')).toEqual({
      mediaType: 'text/plain',
      body: `sp of ${ada.tenant.id}`,
    });
    expect(await t.auth.ssoProviderDocument(ada.tenant.id, 'oidc')).toBeNull();
    expect(await t.auth.ssoProviderDocument('no-such-tenant', 'toy')).toBeNull();
  });
});
