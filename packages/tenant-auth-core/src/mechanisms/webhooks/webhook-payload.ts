import { createHmac } from 'node:crypto';

export { webhookDeliveryIdOf, webhookPayloadOf } from '../../vocabulary/webhook-payload.js';

/** @internal The sealing purpose of a webhook endpoint's secret (bound to its tenant and id). */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

/** @internal What a webhook secret is sealed with: its tenant and endpoint. */
export const webhookBinding = (tenantId: string, endpointId: string) => `${tenantId}|${endpointId}`;

/** @internal The type of the event `POST /tenants/me/webhooks/:id/test` delivers. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/**
 * @internal The Standard Webhooks headers of one attempt: `webhook-id` (the event id), `webhook-timestamp`
 * (seconds, of this attempt) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`
 * keyed by the secret's base64 part after `whsec_`).
 */
export function signWebhook(
  secret: string,
  message: { id: string; timestamp: number; body: string },
): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key)
    .update(`${message.id}.${message.timestamp}.${message.body}`)
    .digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': `v1,${signature}`,
  };
}
