import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTxtDnsServer, type TxtDnsServer } from './helpers/dns-txt.js';
import { api, expectProblem, PASSWORD } from './helpers/http.js';
import { type LoopbackHttpServer, startLoopbackHttp } from './helpers/loopback-http.js';
import { callback, newDomain, ssoErrorCode, ssoTenant, startSso } from './helpers/sso.js';
import { startTestServer, type TestServer } from './helpers/test-server.js';
import { startTokenEndpointProvider, type TokenEndpointProvider } from './helpers/token-endpoint-provider.js';

/*
 * The requests single sign-on makes to a provider go through the server's outbound client, over real
 * HTTP: what the operator reads in the log when one is refused (the reason, and the setting that would
 * allow a loopback or http:// issuer), and `OUTBOUND_ALLOW_LOOPBACK` with its 1.2 name.
 */

/** The log lines (pino JSON) whose `msg` is `msg`. */
function linesOf(server: TestServer, msg: string): Record<string, unknown>[] {
  return server.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

/** Registers an owner (a recent authentication: it just signed up) and answers its access token. */
async function owner(url: string): Promise<string> {
  const reg = await api<{ accessToken: string }>(url, '/auth/register', {
    body: { email: `owner-${randomUUID().slice(0, 8)}@example.org`, password: PASSWORD },
  });
  expect(reg.status).toBe(201);
  return reg.body.accessToken;
}

/** What core logs when a provider refuses a connection (its discovery failed), with the `detail`. */
const REFUSED = 'tenant-auth: SSO connection refused by its provider';

/** `PUT /tenants/me/sso` with `issuer`: the answer, and the details of the refusals it logged. */
async function connect(server: TestServer, token: string, issuer: string) {
  const before = linesOf(server, REFUSED).length;
  const answer = await api(server.baseUrl, '/tenants/me/sso', {
    method: 'PUT',
    token,
    body: { issuer, clientId: 'client', clientSecret: 'a-client-secret-never-logged-5f2c' },
  });
  const logged = linesOf(server, REFUSED).slice(before);
  return { answer, logged: logged.map((line) => line.detail) };
}

let dns: TxtDnsServer;
let listener: LoopbackHttpServer;

beforeAll(async () => {
  dns = await startTxtDnsServer();
  listener = await startLoopbackHttp('127.0.0.1');
});
afterAll(async () => {
  await listener?.close();
  await dns?.close();
});

describe('with loopback closed (the default)', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ DNS_SERVERS: dns.address, LOG_LEVEL: 'info' });
    token = await owner(server.baseUrl);
    // The first server of a process compiles PGlite: on a busy machine that alone can take a minute.
  }, 180_000);
  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['http://127.0.0.1:{port}', 'only requests to HTTPS are allowed'],
    ['https://127.0.0.1:{port}', 'refused https://127.0.0.1:{port}: 127.0.0.1, in 127.0.0.0/8, loopback'],
    ['https://localhost:{port}/realms/x', 'localhost resolves to 127.0.0.1, in 127.0.0.0/8, loopback'],
    ['https://[::1]:{port}', '::1, in ::1/128, loopback'],
  ])(
    'answers issuer_unreachable for %s and logs why, naming OUTBOUND_ALLOW_LOOPBACK',
    async (template, reason) => {
      const issuer = template.replace('{port}', String(listener.port));
      const before = listener.connections;
      const { answer, logged } = await connect(server, token, issuer);
      expectProblem(answer, 400, 'validation_failed');
      expect(answer.body).toMatchObject({ errors: [{ field: 'issuer', code: 'issuer_unreachable' }] });
      expect(logged).toHaveLength(1);
      const message = logged[0];
      expect(message).toContain(reason.replace('{port}', String(listener.port)));
      expect(message).toContain('OUTBOUND_ALLOW_LOOPBACK=true');
      expect(listener.connections).toBe(before);
    },
  );

  it('logs the reason of an SSRF refusal: the name, the address it resolved to, and the range', async () => {
    const idp = `idp.${newDomain()}`;
    dns.addresses.set(idp, ['10.0.0.5']);
    const { answer, logged } = await connect(server, token, `https://${idp}/tenants/secret-path`);
    expect(answer.body).toMatchObject({ errors: [{ field: 'issuer', code: 'issuer_unreachable' }] });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toBe(
      `discovery of https://${idp}/tenants/secret-path failed: refused https://${idp}: ${idp} resolves to 10.0.0.5, in 10.0.0.0/8, private (RFC 1918)`,
    );
    expect(server.logs.join('\n')).not.toContain('a-client-secret-never-logged');
  });
});

describe('with loopback opened by SSO_ALLOW_INSECURE_ISSUERS, the older name of OUTBOUND_ALLOW_LOOPBACK', () => {
  let server: TestServer;
  let fake: TokenEndpointProvider;
  let privateToken: TokenEndpointProvider;
  let privateKeys: TokenEndpointProvider;
  beforeAll(async () => {
    server = await startTestServer({
      DNS_SERVERS: dns.address,
      SSO_ALLOW_INSECURE_ISSUERS: 'true',
      LOG_LEVEL: 'info',
    });
    fake = await startTokenEndpointProvider();
    privateToken = await startTokenEndpointProvider({ token_endpoint: 'https://10.0.0.9/oauth/token' });
    privateKeys = await startTokenEndpointProvider({ jwks_uri: 'https://169.254.169.254/keys' });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await privateToken?.close();
    await privateKeys?.close();
  });

  /** Signs a new user of a new tenant in through `provider`: the callback's answer and the code it carried. */
  async function signInThrough(provider: TokenEndpointProvider) {
    const tenant = await ssoTenant(server.baseUrl, dns, provider);
    const email = `user@${tenant.domain}`;
    provider.next = { sub: `u-${randomUUID()}`, email };
    const { authorizationUrl, stateCookie } = await startSso(server.baseUrl, email);
    const back = await provider.signIn(authorizationUrl);
    const code = back.searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    return { answer: await callback(server.baseUrl, back, stateCookie), code };
  }

  it('connects an http:// provider on loopback', async () => {
    const token = await owner(server.baseUrl);
    const { answer, logged } = await connect(server, token, fake.issuer);
    // The client secret differs from the provider's; the PUT checks only discovery.
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(logged).toEqual([]);
  });

  it('still refuses an internal token endpoint a provider names, and logs why without a token or secret', async () => {
    const before = linesOf(server, 'tenant-auth: SSO callback refused').length;
    const { answer, code } = await signInThrough(privateToken);
    expect(ssoErrorCode(answer)).toBe('idp_error');
    const refused = linesOf(server, 'tenant-auth: SSO callback refused').slice(before);
    expect(refused).toEqual([
      expect.objectContaining({
        reason: 'idp_error',
        detail: expect.stringContaining(
          'refused https://10.0.0.9: 10.0.0.9, in 10.0.0.0/8, private (RFC 1918)',
        ),
      }),
    ]);
    const logs = server.logs.join('\n');
    expect(logs).not.toContain(code);
    expect(logs).not.toContain(privateToken.clientSecret);
    expect(logs).not.toContain('/oauth/token');
  });

  it('refuses the keys at a link-local address (cloud metadata), after a token was issued, and logs why', async () => {
    const before = linesOf(server, 'tenant-auth: SSO callback refused').length;
    const { answer, code } = await signInThrough(privateKeys);
    expect(ssoErrorCode(answer)).not.toBeNull();
    const refused = linesOf(server, 'tenant-auth: SSO callback refused').slice(before);
    expect(refused).toEqual([
      expect.objectContaining({
        detail: expect.stringContaining(
          'refused https://169.254.169.254: 169.254.169.254, in 169.254.0.0/16',
        ),
      }),
    ]);
    expect(server.logs.join('\n')).not.toContain(code);
  });
});
