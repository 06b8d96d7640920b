import { isIP } from 'node:net';
import { resolverOf } from '../dns-resolver.js';
import { OutboundError } from './outbound-error.js';

/** Every address a host name resolves to (A and AAAA), or the host itself when it is an IP address. */
export type AddressResolver = (hostname: string) => Promise<string[]>;

/** The DNS answers that mean "no address of this family", as opposed to a resolver that failed. */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Resolves names with the server's resolvers (`DNS_SERVERS`, else the system's; no cache of its own,
 * so a record's TTL is the resolver's business). `localhost` and names under `.localhost` are loopback
 * without asking anyone (RFC 6761, 6.3). Both families are asked; a name with neither is an
 * `unresolved` {@link OutboundError}.
 *
 * @example
 * const resolve = createAddressResolver(config.sso.dnsServers);
 * await resolve('idp.example.com'); // ['203.0.113.7', '2001:db8::7']
 */
export function createAddressResolver(servers: readonly string[] | undefined): AddressResolver {
  const resolver = resolverOf(servers);
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (isIP(name) !== 0) return [name];
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    const answers = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const addresses = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    if (addresses.length > 0) return addresses;
    const codes = answers.map((a) =>
      a.status === 'rejected' ? String((a.reason as { code?: unknown })?.code ?? 'error') : 'no records',
    );
    const none = codes.every((code) => NO_ADDRESS.has(code) || code === 'no records');
    throw new OutboundError(
      'unresolved',
      none
        ? `${name} has no address (A and AAAA: ${codes.join(', ')})`
        : `${name} could not be resolved (A and AAAA: ${codes.join(', ')})`,
    );
  };
}
