import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses no identity provider of a tenant may live at: loopback, private, link-local, shared, reserved. */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/**
 * Whether `address` (an IP address) is one the public internet routes: not loopback, private (RFC 1918,
 * unique local), link-local (cloud metadata services live there), carrier-grade NAT, or reserved. An
 * IPv4-mapped IPv6 address is judged by its IPv4 address.
 *
 * @example
 * isPublicAddress('10.0.0.5'); // false
 */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped?.[1] ?? address;
  const family = isIP(ip);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A `fetch` for requests whose URL someone else chose (a tenant owner's issuer, and the endpoints its
 * discovery document names): refuses, before connecting, a host that is or resolves to an address
 * {@link isPublicAddress} refuses, so an owner cannot point the server at its own network (SSRF).
 * (The name is resolved again when connecting: a DNS answer changed in between is not caught here.)
 *
 * @example
 * const response = await publicOnlyFetch('https://idp.example.com/.well-known/openid-configuration', {});
 */
export async function publicOnlyFetch(url: string, init: RequestInit): Promise<Response> {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  if (addresses.length === 0 || !addresses.every(isPublicAddress))
    throw new Error(`refused: ${host} is not a public address`);
  return fetch(url, init);
}
