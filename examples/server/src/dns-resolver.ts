import { Resolver } from 'node:dns/promises';
import type { DomainResolver } from 'tenant-auth-core';

/**
 * The reference server's DNS port for domain verification: `node:dns`'s `Resolver`, on the servers of
 * `DNS_SERVERS` (`host:port`, comma-separated) or the system's when none are given.
 *
 * @example
 * const domainResolver = createDnsResolver(['127.0.0.1:5353']);
 */
export function createDnsResolver(servers: readonly string[] | undefined): DomainResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers && servers.length > 0) resolver.setServers([...servers]);
  return { resolveTxt: (name) => resolver.resolveTxt(name) };
}
