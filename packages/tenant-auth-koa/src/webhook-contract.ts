// The request and response bodies of webhooks (docs/http-api.md, "Webhooks"). Loads nothing but zod at
// run time, as the rest of the contract.
import { z } from 'zod';
import { auditEventTypeSchema, id, isoDate } from './contract-parts.js';

const eventFilterSchema = z
  .array(z.union([z.literal('*'), auditEventTypeSchema]))
  .min(1)
  .max(100)
  .meta({ description: 'Audit event types it receives, or `["*"]` for all.' });

/**
 * A webhook endpoint as the API answers it: never its secret.
 *
 * @example
 * const { webhooks } = webhookListSchema.parse(await res.json());
 */
export const webhookSchema = z
  .object({
    id: id(),
    url: z.string().meta({ description: 'Where the events are posted.' }),
    events: eventFilterSchema,
    description: z.string().nullable(),
    enabled: z.boolean(),
    createdAt: isoDate(),
    disabledReason: z
      .string()
      .nullable()
      .meta({ description: 'Why the server disabled it after failed deliveries; null otherwise.' }),
  })
  .meta({ id: 'Webhook', description: 'A webhook endpoint of the tenant; it holds no secret.' });

/**
 * The body of `POST /tenants/me/webhooks`: the endpoint, and its signing secret shown this once.
 *
 * @example
 * const { webhook, secret } = createdWebhookSchema.parse(await res.json());
 */
export const createdWebhookSchema = z
  .object({
    webhook: webhookSchema,
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
      .meta({ description: '`whsec_` and the base64 of 32 random bytes: shown this once, never again.' }),
  })
  .meta({ id: 'CreatedWebhook', description: 'The body of `POST /tenants/me/webhooks`.' });

/**
 * The body of `GET /tenants/me/webhooks`.
 *
 * @example
 * const { webhooks } = webhookListSchema.parse(await res.json());
 */
export const webhookListSchema = z
  .object({ webhooks: z.array(webhookSchema) })
  .meta({ id: 'WebhookList', description: 'The body of `GET /tenants/me/webhooks`.' });

/**
 * The body of `PATCH /tenants/me/webhooks/:id`.
 *
 * @example
 * const { webhook } = webhookAnswerSchema.parse(await res.json());
 */
export const webhookAnswerSchema = z
  .object({ webhook: webhookSchema })
  .meta({ id: 'WebhookAnswer', description: 'The body of `PATCH /tenants/me/webhooks/:id`.' });

/**
 * The body of `POST /tenants/me/webhooks/:id/test`.
 *
 * @example
 * const { deliveryId } = webhookTestSchema.parse(await res.json());
 */
export const webhookTestSchema = z
  .object({ deliveryId: id() })
  .meta({ id: 'WebhookTest', description: 'The delivery of the `webhook.test` event, queued.' });

/**
 * One delivery of an event to an endpoint.
 *
 * @example
 * const { deliveries } = webhookDeliveryPageSchema.parse(await res.json());
 */
export const webhookDeliverySchema = z
  .object({
    id: id(),
    eventId: id().meta({ description: 'The `webhook-id` of every attempt.' }),
    type: z.string().meta({ description: 'The event type, or `webhook.test`.' }),
    attempt: z.int().min(0).meta({ description: 'Attempts made so far.' }),
    status: z.enum(['pending', 'succeeded', 'failed']),
    responseStatus: z.int().nullable().meta({ description: 'The last answer; null when none came.' }),
    createdAt: isoDate(),
    lastAttemptAt: isoDate().nullable(),
    nextAttemptAt: isoDate().nullable(),
  })
  .meta({ id: 'WebhookDelivery', description: 'A delivery of an event to an endpoint (never its body).' });

/**
 * The body of `GET /tenants/me/webhooks/:id/deliveries`: newest first.
 *
 * @example
 * const { deliveries, next } = webhookDeliveryPageSchema.parse(await res.json());
 */
export const webhookDeliveryPageSchema = z
  .object({
    deliveries: z.array(webhookDeliverySchema),
    next: z.string().nullable().meta({ description: 'The `before` of the next page; null on the last.' }),
  })
  .meta({ id: 'WebhookDeliveryPage', description: 'The body of `GET /tenants/me/webhooks/:id/deliveries`.' });

/** @internal The request body of `POST /tenants/me/webhooks`. */
export const createWebhookRequestSchema = z
  .object({
    url: z.string().max(2048).meta({ description: 'An https:// URL (http:// to loopback in development).' }),
    events: eventFilterSchema.optional(),
    description: z.string().max(200).nullable().optional(),
  })
  .meta({ id: 'CreateWebhookRequest', description: 'The body of `POST /tenants/me/webhooks`.' });

/** @internal The request body of `PATCH /tenants/me/webhooks/:id`. */
export const updateWebhookRequestSchema = z
  .object({
    url: z.string().max(2048).optional(),
    events: eventFilterSchema.optional(),
    description: z.string().max(200).nullable().optional(),
    enabled: z.boolean().optional().meta({ description: '`true` clears `disabledReason`.' }),
  })
  .meta({ id: 'UpdateWebhookRequest', description: 'The body of `PATCH /tenants/me/webhooks/:id`.' });

/** @internal The query of `GET /tenants/me/webhooks/:id/deliveries`. */
export const webhookDeliveryQuerySchema = z
  .object({
    limit: z.int().min(1).max(200).optional().meta({ description: 'Page size, 1 to 200; default 50.' }),
    before: z.uuid().optional().meta({ description: 'The `next` of the previous page.' }),
  })
  .meta({
    id: 'WebhookDeliveryQuery',
    description: 'The query of `GET /tenants/me/webhooks/:id/deliveries`.',
  });

/**
 * JSON of a webhook endpoint.
 *
 * @example
 * const webhook = (await res.json()).webhook as WebhookJson;
 */
export type WebhookJson = z.output<typeof webhookSchema>;

/**
 * JSON of a webhook delivery.
 *
 * @example
 * const [latest] = (await res.json()).deliveries as WebhookDeliveryJson[];
 */
export type WebhookDeliveryJson = z.output<typeof webhookDeliverySchema>;
