import type { UserRecord } from '../../vocabulary/records.js';

/**
 * @internal What each kind of stored sealed value is sealed for (its purpose) and bound to (its row), in
 * one place: the use cases that write and read them, and the re-seal after a data-key rotation, use these.
 * Outbox payloads have theirs beside the outbox (`../mail/sealing.ts`).
 */
export const TOTP_SECRET_PURPOSE = 'totp';

/** @internal The additional data a TOTP secret is sealed with: its tenant and user. */
export const totpBinding = (user: Pick<UserRecord, 'tenantId' | 'id'>) => `${user.tenantId}|${user.id}`;

/** @internal The sealing purpose of an SSO connection's secret (bound to the tenant). */
export const SSO_SECRET_PURPOSE = 'sso-client-secret';
