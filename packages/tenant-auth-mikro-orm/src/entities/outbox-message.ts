import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import type { Mutual } from './mutual.js';

/** A row of `tenant_auth_outbox_message`, as {@link TenantAuthOutboxMessage} maps it.
 *
 * @example
 * const dead: TenantAuthOutboxMessageEntity[] = await em.find(TenantAuthOutboxMessage, { deadAt: { $ne: null } });
 */
export interface TenantAuthOutboxMessageEntity {
  /** The primary key, for MikroORM's typings (`em.findOne(…, pk)`, `em.getReference`). */
  [PrimaryKeyProp]?: 'id';
  id: string;
  tenantId?: string | null;
  template: string;
  /** The recipient's address. */
  recipient: string;
  /** Sealed by core (AES-GCM); emptied when the message is buried. */
  payload: string;
  createdAt: Date;
  attempts: number;
  nextAttemptAt: Date;
  lockedUntil?: Date | null;
  lastError?: string | null;
  deadAt?: Date | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthOutboxMessageSchema = defineEntity({
  name: 'TenantAuthOutboxMessage',
  tableName: 'tenant_auth_outbox_message',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: p.uuid().nullable().fieldName('tenant_id'),
    template: p.text().fieldName('template'),
    recipient: p.text().fieldName('recipient'),
    payload: p.text().fieldName('payload'),
    createdAt: p.datetime().fieldName('created_at'),
    attempts: p.integer().fieldName('attempts'),
    nextAttemptAt: p.datetime().fieldName('next_attempt_at'),
    lockedUntil: p.datetime().nullable().fieldName('locked_until'),
    lastError: p.text().nullable().fieldName('last_error'),
    deadAt: p.datetime().nullable().fieldName('dead_at'),
  },
  indexes: [
    {
      name: 'tenant_auth_outbox_message_due_idx',
      properties: ['nextAttemptAt'],
      where: 'dead_at is null',
    },
  ],
});

/**
 * The mail outbox, `tenant_auth_outbox_message`: messages written in the transaction of the change they
 * announce and delivered afterwards. `tenant_id` has no foreign key: a message outlives its tenant.
 * `payload` is sealed by core and emptied when the message is buried. Index: `next_attempt_at` of the
 * messages that are not dead (a partial index: what a claim scans).
 *
 * @example
 * const dead = await orm.em.fork().count(TenantAuthOutboxMessage, { deadAt: { $ne: null } });
 */
export const TenantAuthOutboxMessage: EntitySchema<TenantAuthOutboxMessageEntity> =
  tenantAuthOutboxMessageSchema as unknown as EntitySchema<TenantAuthOutboxMessageEntity>;

// The published interface describes what the schema maps: same fields, same values, same primary key.
true satisfies Mutual<TenantAuthOutboxMessageEntity, InferEntity<typeof tenantAuthOutboxMessageSchema>>;
