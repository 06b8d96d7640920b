// Type-level tests of Mutual, checked by `pnpm typecheck`: each drift of a published entity interface from
// its schema must fail to compile. If Mutual stopped checking something, the @ts-expect-error above that
// case would itself become the error. MikroORM's `Opt` marker (a brand any value satisfies) is not
// structural, so Mutual cannot see it: the `em.create` calls at the end check it through its effect.
import type { EntityManager, InferEntity, PrimaryKeyProp } from '@mikro-orm/core';
import type { TenantAuthAuditEventEntity, tenantAuthAuditEventSchema } from './audit-event.js';
import type { Mutual } from './mutual.js';
import type { TenantAuthSessionEntity, tenantAuthSessionSchema } from './session.js';
import { TenantAuthSession } from './session.js';
import { TenantAuthUser, type TenantAuthUserEntity, type tenantAuthUserSchema } from './user.js';

type User = InferEntity<typeof tenantAuthUserSchema>;
type Session = InferEntity<typeof tenantAuthSessionSchema>;
type AuditEvent = InferEntity<typeof tenantAuthAuditEventSchema>;

// The published interfaces as they are.
true satisfies Mutual<TenantAuthUserEntity, User>;
true satisfies Mutual<TenantAuthSessionEntity, Session>;
true satisfies Mutual<TenantAuthAuditEventEntity, AuditEvent>;

// A NOT NULL column published as optional and nullable.
// @ts-expect-error
true satisfies Mutual<Omit<TenantAuthSessionEntity, 'deviceInfo'> & { deviceInfo?: string | null }, Session>;
// A wider type than the column's.
// @ts-expect-error
true satisfies Mutual<Omit<TenantAuthUserEntity, 'role'> & { role: string }, User>;
// A narrower type than the column's.
// @ts-expect-error
true satisfies Mutual<Omit<TenantAuthUserEntity, 'role'> & { role: 'owner' }, User>;
// Another type altogether.
// @ts-expect-error
true satisfies Mutual<Omit<TenantAuthSessionEntity, 'createdAt'> & { createdAt: Date | string }, Session>;
// A field missing.
// @ts-expect-error
true satisfies Mutual<Omit<TenantAuthSessionEntity, 'rotatedAt'>, Session>;
// A field too many.
// @ts-expect-error
true satisfies Mutual<TenantAuthSessionEntity & { extra: string }, Session>;
// A nullable column published as NOT NULL.
// @ts-expect-error
true satisfies Mutual<Omit<TenantAuthSessionEntity, 'revokedAt'> & { revokedAt: Date }, Session>;
// Another primary key.
// @ts-expect-error
true satisfies Mutual<
  Omit<TenantAuthAuditEventEntity, typeof PrimaryKeyProp> & { [PrimaryKeyProp]?: 'id' },
  AuditEvent
>;

// What a consumer writes: columns with a default (email_verified) or nullable ones may be left out.
declare const em: EntityManager;
const at = new Date();
em.create(TenantAuthUser, {
  id: 'u',
  tenantId: 't',
  email: 'a@example.com',
  passwordHash: 'h',
  role: 'member',
  createdAt: at,
});
em.create(TenantAuthSession, {
  id: 's',
  tenantId: 't',
  userId: 'u',
  deviceInfo: 'd',
  createdAt: at,
  lastUsedAt: at,
  expiresAt: at,
  absoluteExpiresAt: at,
  refreshHash: 'h',
  refreshJti: 'j',
  refreshIssuedAt: at,
  refreshExpiresAt: at,
  amr: ['pwd'],
  authTime: at,
});
