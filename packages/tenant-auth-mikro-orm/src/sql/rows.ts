import { AUTH_METHODS, type AuthMethod } from 'tenant-auth-core';
import type { SessionRecord, TenantRecord, UserRecord } from 'tenant-auth-core/store-kit';
import type { Role } from './core-types.js';

/** @internal A timestamp as a driver returns it: a `Date`, or its text when the application changed the parser. */
type Timestamp = Date | string;

/** @internal A tenant row as the stores' SQL selects it with {@link TENANT_COLUMNS}. */
export interface TenantRow {
  id: string;
  slug: string;
  name: string;
  createdAt: Timestamp;
  requireMfa: boolean;
}

/** @internal The columns of `tenant_auth_tenant`, named as {@link TenantRow} names them. */
export const TENANT_COLUMNS = `id, slug, name, created_at as "createdAt", require_mfa as "requireMfa"`;

/** @internal The columns of `tenant_auth_user`, named as {@link UserRow} names them. */
export const USER_COLUMNS = `id, tenant_id as "tenantId", email, password_hash as "passwordHash", role,
  email_verified as "emailVerified", created_at as "createdAt", active`;

/** @internal The columns of `tenant_auth_session`, named as {@link SessionRow} names them. */
export const SESSION_COLUMNS = `id, tenant_id as "tenantId", user_id as "userId", device_info as "deviceInfo",
  ip_address as "ipAddress", user_agent as "userAgent", created_at as "createdAt", last_used_at as "lastUsedAt",
  expires_at as "expiresAt", absolute_expires_at as "absoluteExpiresAt", revoked_at as "revokedAt",
  refresh_hash as "refreshHash", refresh_jti as "refreshJti", refresh_issued_at as "refreshIssuedAt",
  refresh_expires_at as "refreshExpiresAt", previous_refresh_hash as "previousRefreshHash", rotated_at as "rotatedAt",
  amr, auth_time as "authTime"`;

/** @internal A user row as the stores' SQL selects it with {@link USER_COLUMNS}. */
export interface UserRow {
  id: string;
  tenantId: string;
  email: string;
  passwordHash: string;
  role: string;
  emailVerified: boolean;
  createdAt: Timestamp;
  active: boolean;
}

/** @internal A session row as the stores' SQL selects it with {@link SESSION_COLUMNS}. */
export interface SessionRow {
  id: string;
  tenantId: string;
  userId: string;
  deviceInfo: string;
  ipAddress?: string | null;
  userAgent?: string | null;
  createdAt: Timestamp;
  lastUsedAt: Timestamp;
  expiresAt: Timestamp;
  absoluteExpiresAt: Timestamp;
  revokedAt?: Timestamp | null;
  refreshHash: string;
  refreshJti: string;
  refreshIssuedAt: Timestamp;
  refreshExpiresAt: Timestamp;
  previousRefreshHash?: string | null;
  rotatedAt?: Timestamp | null;
  amr: unknown;
  authTime: Timestamp;
}

/** @internal */
export const dateOrNull = (value: Timestamp | null | undefined): Date | null =>
  value == null ? null : new Date(value);

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
  // Absent is active (UserRecord.active): a user reads as a 1.2 store gave it unless it is deactivated.
  ...(row.active === false ? { active: false } : {}),
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
 * @internal The user a statement returned with a session, as one JSON value: pg and PGlite parse `json`
 * into an object; an application may have replaced that parser, and then it is the text.
 */
export function userOf(row: { user: UserRow | string | null }): UserRow | null {
  return typeof row.user === 'string' ? (JSON.parse(row.user) as UserRow | null) : row.user;
}

/**
 * @internal A `text[]` column as the driver returns it (an array; the literal `{pwd,otp}` when an
 * application replaced the array parser), as the methods core knows: an unknown word is dropped, never
 * trusted.
 */
export function toAuthMethods(value: unknown): AuthMethod[] {
  return fromTextArray(value).filter((w): w is AuthMethod =>
    (AUTH_METHODS as readonly unknown[]).includes(w),
  );
}

/** @internal A `text[]` as the driver returns it (an array, or the `{a,b}` literal). */
export const fromTextArray = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.map(String)
    : typeof value === 'string'
      ? value
          .replace(/^\{|\}$/g, '')
          .split(',')
          .filter((w) => w !== '')
      : [];
