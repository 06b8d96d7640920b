import { defineEntity, type EntitySchema, type InferEntity, type PrimaryKeyProp, p } from '@mikro-orm/core';
import type { Mutual } from './mutual.js';
import { tenantAuthTenantSchema } from './tenant.js';

/**
 * A row of `tenant_auth_webhook_endpoint`, as {@link TenantAuthWebhookEndpoint} maps it.
 *
 * @example
 * const enabled = await em.count(TenantAuthWebhookEndpoint, { tenantId, enabled: true });
 */
export interface TenantAuthWebhookEndpointEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'id';
  /** UUIDv7. */
  id: string;
  tenantId: string;
  url: string;
  /** Audit event types, or `{*}`. */
  events: string[];
  description?: string | null;
  /** The signing secret, sealed with the data key. */
  sealedSecret: string;
  enabled: boolean;
  disabledReason?: string | null;
  createdAt: Date;
  consecutiveFailures: number;
  failingSince?: Date | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthWebhookEndpointSchema = defineEntity({
  name: 'TenantAuthWebhookEndpoint',
  tableName: 'tenant_auth_webhook_endpoint',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    url: p.text().fieldName('url'),
    events: p.array().fieldName('events'),
    description: p.text().nullable().fieldName('description'),
    sealedSecret: p.text().fieldName('sealed_secret'),
    enabled: p.boolean().fieldName('enabled'),
    disabledReason: p.text().nullable().fieldName('disabled_reason'),
    createdAt: p.datetime().fieldName('created_at'),
    consecutiveFailures: p.integer().fieldName('consecutive_failures'),
    failingSince: p.datetime().nullable().fieldName('failing_since'),
  },
  indexes: [{ name: 'tenant_auth_webhook_endpoint_tenant_idx', properties: ['tenantId', 'createdAt'] }],
});

/**
 * The webhook endpoints of tenants, `tenant_auth_webhook_endpoint` (1.3): URL, event filter, sealed signing
 * secret, whether enabled and why not, and the failure counts that disable it; going with its tenant.
 * Index: `(tenant_id, created_at)` (the tenant's list).
 *
 * @example
 * const endpoints = await orm.em.fork().find(TenantAuthWebhookEndpoint, { tenantId });
 */
export const TenantAuthWebhookEndpoint: EntitySchema<TenantAuthWebhookEndpointEntity> =
  tenantAuthWebhookEndpointSchema as unknown as EntitySchema<TenantAuthWebhookEndpointEntity>;

true satisfies Mutual<TenantAuthWebhookEndpointEntity, InferEntity<typeof tenantAuthWebhookEndpointSchema>>;

/**
 * A row of `tenant_auth_webhook_delivery`, as {@link TenantAuthWebhookDelivery} maps it.
 *
 * @example
 * const pending = await em.count(TenantAuthWebhookDelivery, { status: 'pending' });
 */
export interface TenantAuthWebhookDeliveryEntity {
  /** The primary key, for MikroORM's typings. */
  [PrimaryKeyProp]?: 'id';
  /** UUIDv7. */
  id: string;
  tenantId: string;
  endpointId: string;
  /** The event's id: the `webhook-id` of every attempt. */
  eventId: string;
  type: string;
  /** The JSON body, the same on every attempt. */
  payload: string;
  attempt: number;
  /** `pending`, `succeeded` or `failed`. */
  status: string;
  responseStatus?: number | null;
  createdAt: Date;
  lastAttemptAt?: Date | null;
  nextAttemptAt?: Date | null;
  lockedUntil?: Date | null;
}

/** The schema as defined, with MikroORM's inferred types: what the stores query with. Internal. */
export const tenantAuthWebhookDeliverySchema = defineEntity({
  name: 'TenantAuthWebhookDelivery',
  tableName: 'tenant_auth_webhook_delivery',
  properties: {
    id: p.uuid().primary().fieldName('id'),
    tenantId: () =>
      p.manyToOne(tenantAuthTenantSchema).mapToPk().fieldName('tenant_id').deleteRule('cascade'),
    endpointId: () =>
      p.manyToOne(tenantAuthWebhookEndpointSchema).mapToPk().fieldName('endpoint_id').deleteRule('cascade'),
    eventId: p.uuid().fieldName('event_id'),
    type: p.text().fieldName('type'),
    payload: p.text().fieldName('payload'),
    attempt: p.integer().fieldName('attempt'),
    status: p.text().fieldName('status'),
    responseStatus: p.integer().nullable().fieldName('response_status'),
    createdAt: p.datetime().fieldName('created_at'),
    lastAttemptAt: p.datetime().nullable().fieldName('last_attempt_at'),
    nextAttemptAt: p.datetime().nullable().fieldName('next_attempt_at'),
    lockedUntil: p.datetime().nullable().fieldName('locked_until'),
  },
  indexes: [
    { name: 'tenant_auth_webhook_delivery_endpoint_idx', properties: ['endpointId', 'id'] },
    {
      name: 'tenant_auth_webhook_delivery_due_idx',
      properties: ['nextAttemptAt'],
      where: "status = 'pending'",
    },
    { name: 'tenant_auth_webhook_delivery_created_idx', properties: ['createdAt'] },
  ],
});

/**
 * The webhook deliveries, `tenant_auth_webhook_delivery` (1.3): one row per event and endpoint, written in
 * the transaction of the event, with its attempts so far; going with its endpoint and tenant. Indexes:
 * `(endpoint_id, id)` (an endpoint's list), `next_attempt_at` of the pending ones (what a claim scans),
 * `created_at` (cleanup).
 *
 * @example
 * const deliveries = await orm.em.fork().find(TenantAuthWebhookDelivery, { endpointId });
 */
export const TenantAuthWebhookDelivery: EntitySchema<TenantAuthWebhookDeliveryEntity> =
  tenantAuthWebhookDeliverySchema as unknown as EntitySchema<TenantAuthWebhookDeliveryEntity>;

true satisfies Mutual<TenantAuthWebhookDeliveryEntity, InferEntity<typeof tenantAuthWebhookDeliverySchema>>;
