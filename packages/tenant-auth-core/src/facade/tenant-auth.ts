import type { TenantAuthAccounts } from '../use-cases/accounts/accounts.js';
import type { TenantAuthApiKeys } from '../use-cases/api-keys/api-keys.js';
import type { TenantAuthAudit } from '../use-cases/audit/audit.js';
import type { TenantAuthMaintenance } from '../use-cases/maintenance/maintenance.js';
import type { TenantAuthMembers } from '../use-cases/members/members.js';
import type { TenantAuthMfa } from '../use-cases/mfa/mfa.js';
import type { TenantAuthPasskeys } from '../use-cases/passkeys/passkey-types.js';
import type { TenantAuthScim } from '../use-cases/scim/scim-types.js';
import type { TenantAuthSessions } from '../use-cases/sessions/sessions.js';
import type { TenantAuthSso } from '../use-cases/sso/sso.js';
import type { TenantAuthWebhooks } from '../use-cases/webhooks/webhooks.js';
import type { AccessClaims, ApiKeyClaims, Principal } from '../vocabulary/claims.js';
import type { ApiKey, Member } from '../vocabulary/records.js';
import type { Role } from '../vocabulary/roles.js';

/**
 * The service composed by `createTenantAuth`. Every method fails with a `TenantAuthError` (switch on
 * its `code`); every input is validated here, so it is safe to pass data from a request.
 *
 * Methods that administer a tenant (members, invitations, the audit log) or change the caller's account
 * (password, email, deletion, revoking sessions) fail with `invalid_token` as soon as the token's session
 * is no longer active (logout, "sign out everywhere", a password reset), whatever
 * `checkSessionOnVerify` says; plain reads accept a valid token until it expires.
 *
 * Each use case states its own part, in its folder, with the functions that implement it under the same
 * names: {@link TenantAuthAccounts}, {@link TenantAuthSessions}, {@link TenantAuthMembers},
 * {@link TenantAuthAudit}, {@link TenantAuthMfa}, {@link TenantAuthPasskeys}, {@link TenantAuthSso},
 * {@link TenantAuthApiKeys}, {@link TenantAuthWebhooks}, {@link TenantAuthScim} and {@link TenantAuthMaintenance}. `authorize` is the facade's own: it serves
 * users and API keys alike.
 *
 * @example
 * const { accessToken } = await auth.login({ email, password }, { ipAddress, userAgent });
 * const claims = await auth.verifyAccessToken(accessToken);
 * const tenant = await auth.getMyTenant(claims);
 */
export interface TenantAuth
  extends TenantAuthAccounts,
    TenantAuthSessions,
    TenantAuthMembers,
    TenantAuthAudit,
    TenantAuthMfa,
    TenantAuthPasskeys,
    TenantAuthSso,
    TenantAuthApiKeys,
    TenantAuthWebhooks,
    TenantAuthScim,
    TenantAuthMaintenance {
  /**
   * The caller's account as the stores know it now, if its role is at least `minimum` (owner > admin >
   * member): the one role check, for an application's own routes (tenant-auth-koa's `requireRole`).
   * Fails with `forbidden` below it, and `invalid_token` when the account no longer exists or, for
   * `admin` and `owner`, when the token's session is no longer active (logged out, revoked, reset). A
   * token's `role` claim may be up to its lifetime old; this is not. For an API key: the key as the
   * stores know it now (`invalid_token` once revoked or expired), if its role is at least `minimum`.
   */
  authorize(claims: AccessClaims, minimum: Role): Promise<Member>;
  authorize(apiKey: ApiKeyClaims, minimum: Role): Promise<ApiKey>;
  authorize(principal: Principal, minimum: Role): Promise<Member | ApiKey>;
}
