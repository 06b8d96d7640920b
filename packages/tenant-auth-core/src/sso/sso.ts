import type { AccessClaims } from '../claims.js';
import { TenantAuthError } from '../errors.js';
import type { Services } from '../services.js';
import { createSsoConnection } from './connection.js';
import { createDomains } from './domains.js';
import { createSsoSignIn } from './sign-in.js';
import type { SsoOptions } from './sso-types.js';

const ssoUnavailable = () =>
  new TenantAuthError('unavailable', 'Single sign-on is not configured on this server.', {
    retryAfterSeconds: 3600,
  });

/**
 * @internal Single sign-on (issue 31): a tenant's domains, its OpenID Connect connection, and signing in
 * through it. `requireRecent` is the recent-authentication check of the routes that change something.
 */
export function createSso(
  services: Services,
  sso: SsoOptions | undefined,
  requireRecent: (claims: AccessClaims) => Promise<void>,
) {
  const domains = createDomains(services, sso?.domainResolver, requireRecent);
  return {
    ...domains,
    async addDomain(...args: Parameters<typeof domains.addDomain>) {
      if (!sso) throw ssoUnavailable();
      return domains.addDomain(...args);
    },
    async verifyDomain(...args: Parameters<typeof domains.verifyDomain>) {
      if (!sso) throw ssoUnavailable();
      return domains.verifyDomain(...args);
    },
    ...createSsoConnection(services, sso, requireRecent, ssoUnavailable),
    ...createSsoSignIn(services, sso),
  };
}
