import {
  defineEntity,
  type EntitySchema,
  type InferEntity,
  type Opt,
  type PrimaryKeyProp,
  p,
} from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';

/** A row of `tenant_auth_audit_event`, as {@link TenantAuthAuditEvent} maps it.
 *
 * @example
 * const events: TenantAuthAuditEventEntity[] = await em.find(TenantAuthAuditEvent, { tenantId, type: 'login_failed' });
 */
export interface TenantAuthAuditEventEntity {
  /** The primary key, for MikroORM's typings (`em.findOne(…, pk)`, `em.getReference`). */
  [PrimaryKeyProp]?: ['tenantId', 'id'];
  tenantId: string;
  /** UUIDv7: time-ordered. */
  id: string;
  type: string;
  at: Date;
  actorId?: string | null;
  /** `user` or `api_key` (1.2): what `actorId` is. */
  actorType: Opt<string>;
  subjectId?: string | null;
  sessionId?: string | null;
  ipAddress?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthAuditEventSchema = defineEntity({
  name: 'TenantAuthAuditEvent',
  tableName: 'tenant_auth_audit_event',
  primaryKeys: ['tenantId', 'id'],
  properties: {
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().primary().fieldName('tenant_id').deleteRule('cascade'),
    id: p.uuid().primary().fieldName('id'),
    type: p.text().fieldName('type'),
    at: p.datetime().fieldName('at').index('tenant_auth_audit_event_at_idx'),
    actorId: p.uuid().nullable().fieldName('actor_id'),
    actorType: p.text().fieldName('actor_type').default('user'),
    subjectId: p.uuid().nullable().fieldName('subject_id'),
    sessionId: p.uuid().nullable().fieldName('session_id'),
    ipAddress: p.text().nullable().fieldName('ip_address'),
    userAgent: p.text().nullable().fieldName('user_agent'),
    requestId: p.text().nullable().fieldName('request_id'),
  },
  // Ascending: a B-tree scans backwards as fast, so `order by id desc` reads these in order. (Declared
  // `id desc`, MikroORM 7.2's introspection reads the sort of `id` off `tenant_id` and the schema diff never
  // settles.)
  indexes: [
    { name: 'tenant_auth_audit_event_type_idx', properties: ['tenantId', 'type', 'id'] },
    { name: 'tenant_auth_audit_event_actor_idx', properties: ['tenantId', 'actorId', 'id'] },
    { name: 'tenant_auth_audit_event_subject_idx', properties: ['tenantId', 'subjectId', 'id'] },
  ],
});

/**
 * The audit log, `tenant_auth_audit_event`: a tenant's security events, ids time-ordered (UUIDv7). The
 * primary key is `(tenant_id, id)`: every read is a tenant's, so the first page of a tenant is read
 * backwards from the key, never by walking other tenants' newer events along an index on `id` alone
 * (which PostgreSQL prefers for a tenant that holds most of the table, whatever its recent share).
 * Events go with their tenant (`on delete cascade`); `actor_id`, `subject_id` and `session_id` have no
 * foreign keys, so an event outlives the user and the session it names. Indexes: `(tenant_id, type, id)`,
 * `(tenant_id, actor_id, id)`, `(tenant_id, subject_id, id)` (filtered pages, newest first: scanned
 * backwards) and `at` (retention).
 *
 * @example
 * const failures = await orm.em.fork().count(TenantAuthAuditEvent, { tenantId, type: 'login_failed' });
 */
export const TenantAuthAuditEvent: EntitySchema<TenantAuthAuditEventEntity> =
  tenantAuthAuditEventSchema as unknown as EntitySchema<TenantAuthAuditEventEntity>;

// The published interface describes what the schema maps: same fields, same values, same primary key.
true satisfies Mutual<TenantAuthAuditEventEntity, InferEntity<typeof tenantAuthAuditEventSchema>>;
