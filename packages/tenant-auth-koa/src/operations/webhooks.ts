import type { Webhook, WebhookDelivery } from 'tenant-auth-core';
import { requestContext } from '../request-context.js';
import {
  createdWebhookSchema,
  type WebhookDeliveryJson,
  type WebhookJson,
  webhookAnswerSchema,
  webhookDeliveryPageSchema,
  webhookListSchema,
  webhookTestSchema,
} from '../webhook-contract.js';
import { defineOperation } from './define.js';

const toWebhookJson = (w: Webhook): WebhookJson => ({
  id: w.id,
  url: w.url,
  events: w.events as WebhookJson['events'],
  description: w.description,
  enabled: w.enabled,
  createdAt: w.createdAt.toISOString(),
  disabledReason: w.disabledReason,
});

const toDeliveryJson = (d: WebhookDelivery): WebhookDeliveryJson => ({
  id: d.id,
  eventId: d.eventId,
  type: d.type,
  attempt: d.attempt,
  status: d.status,
  responseStatus: d.responseStatus,
  createdAt: d.createdAt.toISOString(),
  lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
});

/** @internal The webhook endpoints of the caller's tenant (docs/http-api.md, "Webhooks"). */
export const WEBHOOK_OPERATIONS = [
  defineOperation({
    id: 'createWebhook',
    method: 'POST',
    path: '/tenants/me/webhooks',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: 'Create a webhook endpoint; its signing secret is in this answer only.',
    description:
      "Owners and admins, with a recent authentication. The tenant's audit events it subscribes to are posted to it, signed as Standard Webhooks.",
    body: 'createWebhook',
    recent: true,
    success: {
      status: 201,
      body: createdWebhookSchema,
      description: 'The endpoint, and its secret (shown once).',
    },
    problems: ['validation_failed'],
    handler: async ({ ctx, caller, body }, { auth }) => {
      const { webhook, secret } = await auth.createWebhook(caller, body, requestContext(ctx));
      return { webhook: toWebhookJson(webhook), secret };
    },
  }),
  defineOperation({
    id: 'listWebhooks',
    method: 'GET',
    path: '/tenants/me/webhooks',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: "The tenant's webhook endpoints (never a secret).",
    description: 'Owners and admins.',
    success: { status: 200, body: webhookListSchema, description: 'Endpoints, oldest first.' },
    handler: async ({ caller }, { auth }) => ({
      webhooks: (await auth.listWebhooks(caller)).map(toWebhookJson),
    }),
  }),
  defineOperation({
    id: 'updateWebhook',
    method: 'PATCH',
    path: '/tenants/me/webhooks/:id',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: 'Change a webhook endpoint; `enabled: true` clears `disabledReason`.',
    description: 'Owners and admins, with a recent authentication.',
    params: { id: 'Webhook id.' },
    body: 'updateWebhook',
    recent: true,
    success: { status: 200, body: webhookAnswerSchema, description: 'The endpoint as changed.' },
    problems: ['not_found', 'validation_failed'],
    handler: async ({ ctx, caller, params, body }, { auth }) => ({
      webhook: toWebhookJson(await auth.updateWebhook(caller, params.id, body, requestContext(ctx))),
    }),
  }),
  defineOperation({
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/tenants/me/webhooks/:id',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: 'Delete a webhook endpoint; nothing more is delivered to it.',
    description: 'Owners and admins, with a recent authentication.',
    params: { id: 'Webhook id.' },
    recent: true,
    success: { status: 204, description: 'Deleted.' },
    problems: ['not_found'],
    handler: async ({ ctx, caller, params }, { auth }) => {
      await auth.deleteWebhook(caller, params.id, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'testWebhook',
    method: 'POST',
    path: '/tenants/me/webhooks/:id/test',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: 'Deliver a `webhook.test` event to the endpoint, like any other.',
    description: 'Owners and admins. The event ignores the filter; its data is `{webhookId}`.',
    params: { id: 'Webhook id.' },
    success: { status: 202, body: webhookTestSchema, description: 'The delivery is queued.' },
    problems: ['not_found'],
    handler: async ({ caller, params }, { auth }) => auth.testWebhook(caller, params.id),
  }),
  defineOperation({
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/tenants/me/webhooks/:id/deliveries',
    caller: 'admin',
    budget: 'general',
    tag: 'tenants',
    summary: "The endpoint's deliveries, newest first.",
    description: 'Owners and admins.',
    params: { id: 'Webhook id.' },
    query: 'webhookDeliveryQuery',
    success: { status: 200, body: webhookDeliveryPageSchema, description: 'A page of deliveries.' },
    problems: ['not_found', 'validation_failed'],
    handler: async ({ caller, params, query }, { auth }) => {
      const page = await auth.listWebhookDeliveries(caller, params.id, query);
      return { deliveries: page.deliveries.map(toDeliveryJson), next: page.next };
    },
  }),
];
