import { authorizeUser } from '../mechanisms/authorization.js';
import { createAccounts } from '../use-cases/accounts/accounts.js';
import { createApiKeyAuthorization, createApiKeys } from '../use-cases/api-keys/api-keys.js';
import { createAudit } from '../use-cases/audit/audit.js';
import { createMaintenance } from '../use-cases/maintenance/maintenance.js';
import { createMembers } from '../use-cases/members/members.js';
import { createMfa } from '../use-cases/mfa/mfa.js';
import { createPasskeys } from '../use-cases/passkeys/passkeys.js';
import { createScim } from '../use-cases/scim/scim.js';
import { createSessions } from '../use-cases/sessions/sessions.js';
import { createSso } from '../use-cases/sso/sso.js';
import { createWebhooks } from '../use-cases/webhooks/webhooks.js';
import { isApiKeyPrincipal, type Principal } from '../vocabulary/claims.js';
import { composeServices } from './compose-services.js';
import { resolveOptions, type TenantAuthOptions } from './options.js';
import type { TenantAuth } from './tenant-auth.js';

/**
 * Composes the services of tenant-auth: registration, login, refresh rotation, logout, sessions,
 * tenant reads, JWKS, rate limits and cleanup. Every option is validated here, before any I/O; a bad
 * one throws `TenantAuthError` with code `invalid_configuration` naming it.
 *
 * @example
 * const auth = createTenantAuth({
 *   stores: createMemoryStores(),
 *   accessToken: { secret: process.env.JWT_SECRET! },
 *   refreshSecret: process.env.JWT_REFRESH_SECRET!,
 * });
 * const { accessToken } = await auth.register({ email: 'ada@example.com', password: 'Correct-Horse-42' });
 * const claims = await auth.verifyAccessToken(accessToken);
 */
export function createTenantAuth(options: TenantAuthOptions): TenantAuth {
  const resolved = resolveOptions(options);
  const services = composeServices(resolved);
  const { stores, clock } = services;
  const authorizeApiKey = createApiKeyAuthorization(services);
  // Each use case is its part of TenantAuth, built once over the shared services.
  return {
    ...createAccounts(services),
    ...createSessions(services, {
      reuseGraceSeconds: resolved.refreshReuseGraceSeconds,
      sessionCheck: resolved.sessionCheck,
    }),
    ...createMembers(services),
    ...createAudit(services),
    ...createMfa(services),
    ...createPasskeys(services),
    ...createSso(services, resolved.sso),
    ...createApiKeys(services, { cacheSeconds: resolved.apiKeyCacheSeconds }),
    ...createWebhooks(services, resolved.webhooks),
    ...createScim(services),
    ...createMaintenance(services, {
      revokedSessionRetentionSeconds: resolved.revokedSessionRetentionSeconds,
      auditRetentionSeconds: resolved.auditRetentionSeconds,
      cleanupBatchSize: resolved.cleanupBatchSize,
    }),
    // A user's role or a key's, as the stores know it now.
    authorize: ((principal: Principal, minimum) =>
      isApiKeyPrincipal(principal)
        ? authorizeApiKey(principal, minimum)
        : authorizeUser(stores, () => clock.now(), principal, minimum)) as TenantAuth['authorize'],
  };
}
