import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../src/public-fetch.js';
import { createOpenIdClientProvider } from '../src/sso-openid-client.js';

/*
 * An issuer is a tenant owner's input (`PUT /tenants/me/sso`) and its discovery document names the token
 * and key endpoints: in production (`SSO_ALLOW_INSECURE_ISSUERS` off) the server must not connect to an
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
    const provider = createOpenIdClientProvider({ timeoutSeconds: 2 });
    for (const issuer of [`https://127.0.0.1:${port}/`, `https://localhost:${port}/realms/x`]) {
      await expect(provider.discover(issuer)).rejects.toThrow();
    }
    expect(connections).toBe(0);
  });

  it('tells public addresses from loopback, private, link-local and mapped ones', () => {
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '8.8.8.8'])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });
});
