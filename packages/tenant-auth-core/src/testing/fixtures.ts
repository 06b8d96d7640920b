import { randomUUID } from 'node:crypto';
import type {
  AuditEventRecord,
  OneTimeTokenKind,
  OneTimeTokenRecord,
  OutboxMessageRecord,
  SessionRecord,
  SessionRotation,
  TenantRecord,
  UserRecord,
} from '../store-kit.js';
import type { Role } from '../vocabulary/roles.js';

/** @internal Test data builders with valid UUIDs (real databases type-check them). */
export const T0 = Date.UTC(2026, 0, 1);
export const at = (ms: number) => new Date(T0 + ms);
export const hex64 = () => `${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`;

let counter = 0;
export function tenantAndOwner(overrides: { email?: string; slug?: string } = {}): {
  tenant: TenantRecord;
  user: UserRecord;
} {
  counter++;
  const tenantId = randomUUID();
  const tag = `${Date.now().toString(36)}${counter}${Math.floor(Math.random() * 1e6).toString(36)}`;
  return {
    tenant: {
      id: tenantId,
      slug: overrides.slug ?? `tenant-${tag}`,
      name: `TenantRecord ${tag}`,
      createdAt: at(0),
      requireMfa: false,
    },
    user: {
      id: randomUUID(),
      tenantId,
      email: overrides.email ?? `user-${tag}@example.com`,
      passwordHash: '$2b$04$abcdefghijklmnopqrstuu5rGrKq0u6p2lO7YQzBq1Bz1JZJkP6Dq',
      role: 'owner',
      emailVerified: false,
      createdAt: at(0),
    },
  };
}

/** A further user of a tenant. */
export function memberOf(
  tenantId: string,
  overrides: Partial<UserRecord> & { role?: Role } = {},
): UserRecord {
  counter++;
  return {
    id: randomUUID(),
    tenantId,
    email: `member-${Date.now().toString(36)}${counter}@example.com`,
    passwordHash: '$2b$04$abcdefghijklmnopqrstuu5rGrKq0u6p2lO7YQzBq1Bz1JZJkP6Dq',
    role: 'member',
    emailVerified: true,
    createdAt: at(counter),
    ...overrides,
  };
}

export function oneTimeToken(
  kind: OneTimeTokenKind,
  tenantId: string,
  overrides: Partial<OneTimeTokenRecord> = {},
): OneTimeTokenRecord {
  counter++;
  return {
    id: randomUUID(),
    kind,
    tenantId,
    userId: null,
    email: `invitee-${counter}@example.com`,
    role: kind === 'invitation' ? 'member' : null,
    createdBy: null,
    sessionId: null,
    tokenHash: hex64(),
    createdAt: at(0),
    expiresAt: at(3_600_000),
    ...overrides,
  };
}

export function outboxMessage(overrides: Partial<OutboxMessageRecord> = {}): OutboxMessageRecord {
  counter++;
  return {
    id: randomUUID(),
    tenantId: null,
    template: 'password_reset',
    to: `reader-${counter}@example.com`,
    payload: `sealed-${counter}`,
    createdAt: at(0),
    attempts: 0,
    nextAttemptAt: at(0),
    lockedUntil: null,
    lastError: null,
    deadAt: null,
    ...overrides,
  };
}

export function auditEvent(tenantId: string, overrides: Partial<AuditEventRecord> = {}): AuditEventRecord {
  return {
    id: randomUUID(),
    tenantId,
    type: 'login_succeeded',
    at: at(0),
    actorId: null,
    actorType: 'user',
    subjectId: null,
    sessionId: null,
    ipAddress: '203.0.113.7',
    userAgent: 'Mozilla/5.0',
    requestId: 'req-1',
    ...overrides,
  };
}

export function sessionFor(user: UserRecord, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: randomUUID(),
    tenantId: user.tenantId,
    userId: user.id,
    deviceInfo: 'Firefox on Linux',
    ipAddress: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    createdAt: at(0),
    lastUsedAt: at(0),
    expiresAt: at(7 * 86_400_000),
    absoluteExpiresAt: at(30 * 86_400_000),
    revokedAt: null,
    refreshHash: hex64(),
    refreshJti: randomUUID(),
    refreshIssuedAt: at(0),
    refreshExpiresAt: at(7 * 86_400_000),
    previousRefreshHash: null,
    rotatedAt: null,
    amr: ['pwd'],
    authTime: at(0),
    ...overrides,
  };
}

/** The fields a rotation at `ms` sets, sliding `days` (7 by default); a fresh refresh hash unless given. */
export const rotation = (ms: number, refreshHash = hex64(), days = 7): SessionRotation => ({
  refreshHash,
  refreshJti: `jti-${refreshHash.slice(0, 8)}`,
  refreshIssuedAt: at(ms),
  refreshExpiresAt: at(ms + days * 86_400_000),
  expiresAt: at(ms + days * 86_400_000),
  lastUsedAt: at(ms),
  rotatedAt: at(ms),
});
