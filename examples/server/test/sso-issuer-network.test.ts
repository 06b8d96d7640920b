import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient } from '../src/outbound/outbound-client.js';
import { createOidcProvider } from '../src/sso/oidc.js';

/*
 * An issuer is a tenant owner's input (`PUT /tenants/me/sso`) and its discovery document names the token
 * and key endpoints: in production (`OUTBOUND_ALLOW_LOOPBACK` off) the server must not connect to an
 * address of its own network (SSRF). A real TCP listener on loopback counts the connections it gets.
 */
describe('the identity-provider port and the network an issuer names', () => {
  let listener: Server;
  let port = 0;
  let connections = 0;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => listener.close(resolve));
  });

  it('never connects to a loopback or private issuer in production', async () => {
    const outbound = createOutboundClient();
    const provider = createOidcProvider({
      redirectUri: 'https://auth.example.com/api/v1/auth/sso/callback',
      fetch: outbound.fetch,
      timeoutSeconds: 2,
    });
    // The reason reaches the failure's detail (core logs it), with the setting that would open loopback
    // and http:// where one would.
    for (const [issuer, reason] of [
      [`https://127.0.0.1:${port}/`, 'loopback (RFC 1122); OUTBOUND_ALLOW_LOOPBACK=true'],
      [`https://localhost:${port}/realms/x`, 'localhost resolves to 127.0.0.1'],
      [`https://[::ffff:127.0.0.1]:${port}/`, 'IPv4-mapped'],
      [`http://127.0.0.1:${port}/`, 'only requests to HTTPS are allowed; OUTBOUND_ALLOW_LOOPBACK=true'],
      ['https://10.0.0.1/', 'refused https://10.0.0.1: 10.0.0.1, in 10.0.0.0/8, private (RFC 1918)'],
    ] as const) {
      const configured = await provider.configure({ issuer, clientId: 'c', clientSecret: 's' });
      expect(configured, issuer).toMatchObject({
        ok: false,
        errors: [{ field: 'issuer', code: 'issuer_unreachable' }],
        detail: expect.stringContaining(reason),
      });
    }
    expect(connections).toBe(0);
    await outbound.close();
  });
});
