import { createApiKeyVerification } from './api-keys/api-key-verification.js';
import { apiKeyOf, createApiKeyManagement } from './api-keys/api-keys.js';
import { isKeyActive, keyRoleNow } from './authorization.js';
import type { AccessClaims, ApiKeyClaims } from './claims.js';
import { forbidden, invalidToken } from './errors.js';
import type { FacadeServices } from './facade-services.js';
import { atLeast, type Role } from './members/roles.js';
import type { ApiKey } from './records.js';
import type { TenantAuth } from './tenant-auth.js';

/**
 * @internal API keys (API.md 1.2): their management, the verification of a presented secret (with the
 * verified-key cache), and the role check of a key. `requireRecent` is the MFA use case's check,
 * composed here so the two use cases stay apart.
 */
export function apiKeysPart(
  { resolved, instrumentation, services }: FacadeServices,
  requireRecent: (claims: AccessClaims) => Promise<unknown>,
) {
  const { stores, clock } = services;
  const verification = createApiKeyVerification(services, {
    cacheSeconds: resolved.apiKeyCacheSeconds,
    onCheck: instrumentation.onApiKeyCheck,
  });
  const management = createApiKeyManagement(services, { requireRecent, forget: verification.forget });
  const part: Pick<
    TenantAuth,
    'createApiKey' | 'listApiKeys' | 'revokeApiKey' | 'verifyApiKey' | 'peekApiKey'
  > = {
    ...management,
    verifyApiKey: verification.verify,
    peekApiKey: verification.peek,
  };
  /** The key as the stores know it now, if its role is at least `minimum`. */
  async function authorizeApiKey(apiKey: ApiKeyClaims, minimum: Role): Promise<ApiKey> {
    const key = await stores.apiKeys.findById(apiKey.tenantId, apiKey.apiKeyId);
    if (!key || !isKeyActive(key, clock.now())) throw invalidToken();
    // At most its creator's role now; a key whose creator has left the tenant works no more.
    const role = await keyRoleNow(stores, key);
    if (role === null) throw invalidToken();
    if (!atLeast(role, minimum)) {
      throw forbidden(
        minimum === 'owner' ? 'Only an owner may do this.' : 'Only an owner or an admin may do this.',
      );
    }
    return { ...apiKeyOf(key), role };
  }
  return { part, authorizeApiKey };
}
