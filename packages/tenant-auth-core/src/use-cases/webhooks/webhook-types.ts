import type { WebhookDeliveryStatus } from '../../ports/webhook-store.js';

/**
 * A webhook endpoint as the API answers it: never its secret.
 *
 * @example
 * const { webhooks }: { webhooks: Webhook[] } = { webhooks: await auth.listWebhooks(claims) };
 */
export interface Webhook {
  id: string;
  url: string;
  /** Audit event types it receives, or `["*"]` for all. */
  events: string[];
  description: string | null;
  enabled: boolean;
  createdAt: Date;
  /** Why the server disabled it; `null` while enabled (or disabled by an administrator). */
  disabledReason: string | null;
}

/**
 * What `createWebhook` takes (`POST /tenants/me/webhooks`). Values are validated by core.
 *
 * @example
 * const input: CreateWebhookInput = { url: 'https://siem.example.com/hooks', events: ['login_failed'] };
 */
export interface CreateWebhookInput {
  url: string;
  /** Audit event types, or `["*"]` (the default) for all. */
  events?: string[] | undefined;
  /** At most 200 characters; `null` when not given. */
  description?: string | null | undefined;
}

/**
 * What `updateWebhook` takes (`PATCH /tenants/me/webhooks/:id`): the fields to change.
 *
 * @example
 * const input: UpdateWebhookInput = { enabled: true };
 */
export interface UpdateWebhookInput {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/**
 * A new endpoint and its signing secret: the secret is answered this once and never again.
 *
 * @example
 * const { webhook, secret }: CreatedWebhook = await auth.createWebhook(claims, { url });
 */
export interface CreatedWebhook {
  webhook: Webhook;
  /** `whsec_` and the base64 of 32 random bytes. */
  secret: string;
}

/**
 * One delivery of an event to an endpoint, as the API answers it (never its body).
 *
 * @example
 * const { deliveries }: WebhookDeliveryPage = await auth.listWebhookDeliveries(claims, id);
 */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  type: string;
  /** Attempts made so far. */
  attempt: number;
  status: WebhookDeliveryStatus;
  responseStatus: number | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
}

/**
 * A page of deliveries, newest first; `next` is the `before` of the next page, `null` on the last.
 *
 * @example
 * const page: WebhookDeliveryPage = await auth.listWebhookDeliveries(claims, id, { limit: 20 });
 */
export interface WebhookDeliveryPage {
  deliveries: WebhookDelivery[];
  next: string | null;
}

/**
 * What `listWebhookDeliveries` takes (`?limit=&before=`); values may come from a query string.
 *
 * @example
 * const input: WebhookDeliveryListInput = { limit: '20', before: page.next ?? undefined };
 */
export interface WebhookDeliveryListInput {
  /** 1 to 200; default 50. */
  limit?: number | string | undefined;
  before?: string | undefined;
}

/**
 * What one run of `deliverWebhooks` did.
 *
 * @example
 * const { attempted, succeeded }: WebhookDeliveryRun = await auth.deliverWebhooks();
 */
export interface WebhookDeliveryRun {
  /** Attempts made. */
  attempted: number;
  succeeded: number;
  failed: number;
  /** Endpoints this run disabled. */
  disabled: number;
}
