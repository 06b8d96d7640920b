import { ACCOUNT_OPERATIONS } from './account.js';
import { API_KEY_OPERATIONS } from './api-keys.js';
import { AUDIT_OPERATIONS } from './audit.js';
import { AUTH_OPERATIONS } from './auth.js';
import type { Operation } from './define.js';
import { EMAIL_OPERATIONS } from './email.js';
import { INVITATION_OPERATIONS } from './invitations.js';
import { MEMBER_OPERATIONS } from './members.js';
import { META_OPERATIONS } from './meta.js';
import { MFA_OPERATIONS } from './mfa.js';
import { PASSKEY_OPERATIONS } from './passkeys.js';
import { RECOVERY_OPERATIONS } from './recovery.js';
import { SCIM_OPERATIONS } from './scim.js';
import { SESSION_OPERATIONS } from './sessions.js';
import { SSO_OPERATIONS } from './sso.js';
import { TENANT_OPERATIONS } from './tenants.js';
import { WEBHOOK_OPERATIONS } from './webhooks.js';

/**
 * The routes of 1.2's features whose store an application's bundle may leave out (core's optional stores:
 * factors, passkeys, SSO, API keys, webhooks, SCIM): they may answer `501 feature_unavailable`.
 */
const withOptionalStore = (group: readonly Operation[]): Operation[] =>
  group.map((operation) => ({
    ...operation,
    problems: [...(operation.problems ?? []), 'feature_unavailable'],
  }));

/**
 * @internal Every operation of the HTTP contract, one group a file, in the order the router tries them
 * (the first that matches a request answers it) and the document lists their paths.
 */
export const OPERATIONS: readonly Operation[] = Object.freeze([
  ...AUTH_OPERATIONS,
  ...withOptionalStore(MFA_OPERATIONS),
  ...TENANT_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...MEMBER_OPERATIONS,
  ...INVITATION_OPERATIONS,
  ...RECOVERY_OPERATIONS,
  ...EMAIL_OPERATIONS,
  ...ACCOUNT_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...withOptionalStore(SSO_OPERATIONS),
  ...META_OPERATIONS,
  ...withOptionalStore(PASSKEY_OPERATIONS),
  ...withOptionalStore(API_KEY_OPERATIONS),
  ...withOptionalStore(WEBHOOK_OPERATIONS),
  ...withOptionalStore(SCIM_OPERATIONS),
]);

/** @internal Whether an operation is served (and documented) with these options. */
export function isServed(operation: Operation, options: { health: boolean }): boolean {
  return operation.onlyWith === undefined || options[operation.onlyWith];
}
