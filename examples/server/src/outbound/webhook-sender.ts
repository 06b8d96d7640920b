import type { WebhookSender } from 'tenant-auth-core';
import type { OutboundClient } from './outbound-client.js';
import { outboundErrorIn } from './outbound-error.js';
import { urlRefusal } from './outbound-policy.js';

/**
 * Core's `WebhookSender` over the server's one outbound client: a URL is refused at once for what the
 * policy can tell without resolving it (scheme, credentials, an IP literal in a forbidden range); each
 * delivery goes through the client (every address checked, the connection to the checked one, no
 * redirect followed, a 10-second deadline, a size cap on the answer).
 *
 * @example
 * const sender = webhookSenderOf(outbound, { allowLoopback: config.outbound.allowLoopback });
 */
export function webhookSenderOf(outbound: OutboundClient, policy: { allowLoopback: boolean }): WebhookSender {
  return {
    checkUrl: (url) => urlRefusal(url, policy)?.message,
    async post({ url, headers, body }) {
      try {
        const answer = await outbound.request({ url, method: 'POST', headers, body });
        return { status: answer.status };
      } catch (err) {
        const failure = outboundErrorIn(err);
        // A too-large answer still answered: its status is unknown to us, as for a timeout.
        return { status: null, error: failure ? failure.message : 'the request failed' };
      }
    },
  };
}
