import type { IdentityProvider } from 'tenant-auth-core';
import type { ServerConfig } from '../config.js';
import type { OutboundClient } from '../outbound/outbound-client.js';
import { createOidcProvider } from './oidc.js';
import { createSamlProvider } from './saml/saml-provider.js';

/**
 * The sign-in protocols the server offers, one provider per protocol: a tenant's connection names one
 * of them (`protocol`). A new protocol is its adapter in this folder and one line here. Every request a
 * provider makes (discovery, tokens, keys, metadata) goes through `outbound`, the server's one outbound
 * client.
 *
 * @example
 * const auth = createTenantAuth({ ..., sso: { providers: identityProviders(config, outbound), domainResolver, appUrl } });
 */
export function identityProviders(
  config: Pick<ServerConfig, 'sso' | 'outbound'>,
  outbound: OutboundClient,
): IdentityProvider[] {
  return [
    createOidcProvider({
      redirectUri: `${config.sso.publicUrl}/api/v1/auth/sso/callback`,
      allowInsecureRequests: config.outbound.allowLoopback,
      fetch: outbound.fetch,
    }),
    createSamlProvider({ publicUrl: config.sso.publicUrl, allowLoopback: config.outbound.allowLoopback }),
  ];
}
