import type { UserRecord } from '../../vocabulary/records.js';

/**
 * @internal The password hash of a user SSO provisioned: no bcrypt hash matches it, so a password login
 * fails until the user sets a password (a reset).
 */
export const NO_PASSWORD = '!sso';

/** @internal Whether the user has no password of its own (SSO provisioned it and none was set since). */
export const hasNoPassword = (user: Pick<UserRecord, 'passwordHash'>): boolean =>
  user.passwordHash === NO_PASSWORD;
