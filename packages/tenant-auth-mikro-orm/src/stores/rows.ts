import { AUTH_METHODS, type AuthMethod } from 'tenant-auth-core';
import type { SessionRecord, TenantRecord, UserRecord } from 'tenant-auth-core/store-kit';
import type { TenantAuthSessionEntity } from '../entities/session.js';
import type { TenantAuthTenantEntity } from '../entities/tenant.js';
import type { TenantAuthUserEntity } from '../entities/user.js';
import type { AuditEventRecord, OneTimeTokenRecord, OutboxMessageRecord, Role } from './core-types.js';

/**
 * @internal A tenant row as the stores' raw SQL returns it: the columns under their entity names (see
 * {@link TENANT_COLUMNS}), which is what the entity interface describes.
 */
export type TenantRow = TenantAuthTenantEntity;

/** @internal The columns of `tenant_auth_tenant`, named as {@link TenantRow} names them. */
export const TENANT_COLUMNS = `id, slug, name, created_at as "createdAt", require_mfa as "requireMfa"`;

/** @internal The columns of `tenant_auth_user`, named as {@link UserRow} names them. */
export const USER_COLUMNS = `id, tenant_id as "tenantId", email, password_hash as "passwordHash", role,
  email_verified as "emailVerified", created_at as "createdAt"`;

/** @internal The columns of `tenant_auth_session`, named as {@link SessionRow} names them. */
export const SESSION_COLUMNS = `id, tenant_id as "tenantId", user_id as "userId", device_info as "deviceInfo",
  ip_address as "ipAddress", user_agent as "userAgent", created_at as "createdAt", last_used_at as "lastUsedAt",
  expires_at as "expiresAt", absolute_expires_at as "absoluteExpiresAt", revoked_at as "revokedAt",
  refresh_hash as "refreshHash", refresh_jti as "refreshJti", refresh_issued_at as "refreshIssuedAt",
  refresh_expires_at as "refreshExpiresAt", previous_refresh_hash as "previousRefreshHash", rotated_at as "rotatedAt",
  amr, auth_time as "authTime"`;

/** @internal A user row as the stores' raw SQL returns it (see {@link USER_COLUMNS}). */
export type UserRow = TenantAuthUserEntity;

/** @internal A session row as the stores' raw SQL returns it (see {@link SESSION_COLUMNS}). */
export type SessionRow = TenantAuthSessionEntity;

const dateOrNull = (value: Date | null | undefined): Date | null => (value == null ? null : new Date(value));

/** @internal */
export const toTenant = (row: TenantRow): TenantRecord => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  createdAt: new Date(row.createdAt),
  requireMfa: row.requireMfa === true,
});

/** @internal */
export const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  email: row.email,
  passwordHash: row.passwordHash,
  role: row.role as Role,
  emailVerified: row.emailVerified,
  createdAt: new Date(row.createdAt),
});

/** @internal */
export const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  userId: row.userId,
  deviceInfo: row.deviceInfo,
  ipAddress: row.ipAddress ?? null,
  userAgent: row.userAgent ?? null,
  createdAt: new Date(row.createdAt),
  lastUsedAt: new Date(row.lastUsedAt),
  expiresAt: new Date(row.expiresAt),
  absoluteExpiresAt: new Date(row.absoluteExpiresAt),
  revokedAt: dateOrNull(row.revokedAt),
  refreshHash: row.refreshHash,
  refreshJti: row.refreshJti,
  refreshIssuedAt: new Date(row.refreshIssuedAt),
  refreshExpiresAt: new Date(row.refreshExpiresAt),
  previousRefreshHash: row.previousRefreshHash ?? null,
  rotatedAt: dateOrNull(row.rotatedAt),
  amr: toAuthMethods(row.amr),
  authTime: new Date(row.authTime),
});

/**
 * @internal A `text[]` column as the driver returns it (an array; the literal `{pwd,otp}` when an
 * application replaced the array parser), as the methods core knows: an unknown word is dropped, never
 * trusted.
 */
export function toAuthMethods(value: unknown): AuthMethod[] {
  const words = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value
          .replace(/^\{|\}$/g, '')
          .split(',')
          .filter((w) => w !== '')
      : [];
  return words.filter((w): w is AuthMethod => (AUTH_METHODS as readonly unknown[]).includes(w));
}

/**
 * @internal A one-time token row, as MikroORM returns it or as raw SQL selects it with
 * {@link ONE_TIME_TOKEN_COLUMNS}. Timestamps may come as `Date` or as text.
 */
export interface OneTimeTokenRow {
  id: string;
  kind: string;
  tenantId: string;
  userId?: string | null;
  email: string;
  role?: string | null;
  createdBy?: string | null;
  sessionId?: string | null;
  tokenHash: string;
  createdAt: Date | string;
  expiresAt: Date | string;
}

/** @internal The columns of `tenant_auth_one_time_token`, named as {@link OneTimeTokenRow} names them. */
export const ONE_TIME_TOKEN_COLUMNS = `id, kind, tenant_id as "tenantId", user_id as "userId", email, role,
  created_by as "createdBy", session_id as "sessionId", token_hash as "tokenHash", created_at as "createdAt",
  expires_at as "expiresAt"`;

/** @internal An outbox row as raw SQL selects it with {@link OUTBOX_COLUMNS}. */
export interface OutboxRow {
  id: string;
  tenantId: string | null;
  template: string;
  recipient: string;
  payload: string;
  createdAt: Date | string;
  attempts: number | string;
  nextAttemptAt: Date | string;
  lockedUntil: Date | string | null;
  lastError: string | null;
  deadAt: Date | string | null;
}

/** @internal The columns of `tenant_auth_outbox_message`, named as {@link OutboxRow} names them. */
export const OUTBOX_COLUMNS = `id, tenant_id as "tenantId", template, recipient, payload, created_at as "createdAt",
  attempts, next_attempt_at as "nextAttemptAt", locked_until as "lockedUntil", last_error as "lastError",
  dead_at as "deadAt"`;

/** @internal An audit event row as raw SQL selects it with {@link AUDIT_EVENT_COLUMNS}. */
export interface AuditEventRow {
  id: string;
  tenantId: string;
  type: string;
  at: Date | string;
  actorId: string | null;
  actorType: string;
  subjectId: string | null;
  sessionId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** @internal The columns of `tenant_auth_audit_event`, named as {@link AuditEventRow} names them. */
export const AUDIT_EVENT_COLUMNS = `id, tenant_id as "tenantId", type, at, actor_id as "actorId",
  actor_type as "actorType", subject_id as "subjectId", session_id as "sessionId", ip_address as "ipAddress", user_agent as "userAgent",
  request_id as "requestId"`;

const dateOrNullish = (value: Date | string | null | undefined): Date | null =>
  value == null ? null : new Date(value);

/** @internal */
export const toOneTimeToken = (row: OneTimeTokenRow): OneTimeTokenRecord => ({
  id: row.id,
  kind: row.kind as OneTimeTokenRecord['kind'],
  tenantId: row.tenantId,
  userId: row.userId ?? null,
  email: row.email,
  role: (row.role ?? null) as Role | null,
  createdBy: row.createdBy ?? null,
  sessionId: row.sessionId ?? null,
  tokenHash: row.tokenHash,
  createdAt: new Date(row.createdAt),
  expiresAt: new Date(row.expiresAt),
});

/** @internal */
export const toOutboxMessage = (row: OutboxRow): OutboxMessageRecord => ({
  id: row.id,
  tenantId: row.tenantId ?? null,
  template: row.template,
  to: row.recipient,
  payload: row.payload,
  createdAt: new Date(row.createdAt),
  attempts: Number(row.attempts),
  nextAttemptAt: new Date(row.nextAttemptAt),
  lockedUntil: dateOrNullish(row.lockedUntil),
  lastError: row.lastError ?? null,
  deadAt: dateOrNullish(row.deadAt),
});

/** @internal */
export const toAuditEvent = (row: AuditEventRow): AuditEventRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  type: row.type as AuditEventRecord['type'],
  at: new Date(row.at),
  actorId: row.actorId ?? null,
  actorType: row.actorType === 'api_key' ? 'api_key' : 'user',
  subjectId: row.subjectId ?? null,
  sessionId: row.sessionId ?? null,
  ipAddress: row.ipAddress ?? null,
  userAgent: row.userAgent ?? null,
  requestId: row.requestId ?? null,
});
