import { isApiKeyPrincipal, type Principal } from './claims.js';
import { apiKeysPart } from './facade-api-keys.js';
import { accountsPart, membersPart, operationsPart, sessionsPart } from './facade-parts.js';
import { composeServices } from './facade-services.js';
import { createMfa } from './mfa/mfa.js';
import { createRecentAuth } from './mfa/recent-auth.js';
import { resolveOptions, type TenantAuthOptions } from './options.js';
import { createPasskeys } from './passkeys/passkeys.js';
import { createSso } from './sso/sso.js';
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
  const composed = composeServices(resolveOptions(options));
  const accounts = accountsPart(composed);
  const mfa = createMfa(composed.services);
  const sso = createSso(composed.services, composed.resolved.sso, (claims) => mfa.requireRecentAuth(claims));
  const sessions = sessionsPart(composed);
  const apiKeys = apiKeysPart(composed, (claims) => mfa.requireRecentAuth(claims));
  return {
    ...accounts.part,
    ...sessions,
    ...mfa,
    ...createPasskeys(composed.services, createRecentAuth(composed.services).requireRecent),
    ...sso,
    ...membersPart(composed),
    ...operationsPart(composed, accounts.processHeld),
    ...apiKeys.part,
    // A user's role or a key's, as the stores know it now.
    authorize: ((principal: Principal, minimum) =>
      isApiKeyPrincipal(principal)
        ? apiKeys.authorizeApiKey(principal, minimum)
        : sessions.authorize(principal, minimum)) as TenantAuth['authorize'],
  };
}
