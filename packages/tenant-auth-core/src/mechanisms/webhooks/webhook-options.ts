import type { WebhookSender } from '../../ports/webhook-sender.js';
import { fail, object } from '../option-checks.js';

/**
 * The `webhooks` option of `createTenantAuth` (docs/http-api.md, "Webhooks").
 *
 * @example
 * const webhooks: WebhookOptions = { sender: myOutboundSender, retryScheduleSeconds: [5, 30, 120] };
 */
export interface WebhookOptions {
  /**
   * Posts the deliveries and judges URLs (the reference server's outbound client). Without it,
   * endpoints can be managed (`https://` URLs only) but nothing is delivered.
   */
  sender?: WebhookSender;
  /** The delays between attempts, in seconds: n delays make at most n + 1 attempts. Default `5,30,120,600,3600,21600,43200,86400`. */
  retryScheduleSeconds?: readonly number[];
}

/** @internal */
export interface ResolvedWebhooks {
  sender: WebhookSender | undefined;
  retryScheduleSeconds: readonly number[];
}

/** @internal The default retry schedule of the contract. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 30, 120, 600, 3600, 21600, 43200, 86400] as const;

/** @internal */
export function resolveWebhooks(value: unknown): ResolvedWebhooks {
  const options = object<WebhookOptions>('webhooks', value) ?? {};
  const sender = options.sender;
  if (
    sender !== undefined &&
    (typeof sender !== 'object' ||
      sender === null ||
      typeof sender.post !== 'function' ||
      typeof sender.checkUrl !== 'function')
  ) {
    throw fail('webhooks.sender', 'must be a WebhookSender (an object with checkUrl() and post())');
  }
  const schedule = options.retryScheduleSeconds ?? DEFAULT_RETRY_SCHEDULE_SECONDS;
  if (
    !Array.isArray(schedule) ||
    schedule.length > 100 ||
    !schedule.every((s) => Number.isInteger(s) && s >= 0 && s <= 7 * 86_400)
  ) {
    throw fail(
      'webhooks.retryScheduleSeconds',
      'must be at most 100 whole numbers of seconds from 0 to 604800',
    );
  }
  return { sender, retryScheduleSeconds: [...schedule] };
}
