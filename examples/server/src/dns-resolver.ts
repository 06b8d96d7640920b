import { Resolver } from 'node:dns/promises';
import type { DomainResolver } from 'tenant-auth-core';

/**
 * `node:dns`'s `Resolver` (c-ares: off libuv's thread pool, where bcrypt runs) on the servers of
 * `DNS_SERVERS` (`host:port`, comma-separated), or the system's when none are given. Every name the
 * server resolves itself (domain verification, outbound requests) goes through one of these.
 *
 * @example
 * const addresses = await resolverOf(['127.0.0.1:5353']).resolve4('idp.example.com');
 */
export function resolverOf(servers: readonly string[] | undefined): Resolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers && servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

/**
 * The reference server's DNS port for domain verification: {@link resolverOf}'s TXT answers.
 *
 * @example
 * const domainResolver = createDnsResolver(['127.0.0.1:5353']);
 */
export function createDnsResolver(servers: readonly string[] | undefined): DomainResolver {
  const resolver = resolverOf(servers);
  return { resolveTxt: (name) => resolver.resolveTxt(name) };
}
