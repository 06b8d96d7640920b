/**
 * What an attempt to post a webhook got: the answer's status, or no answer (a timeout, a refused
 * connection, an address the policy refuses) with why, for the log (never a secret).
 *
 * @example
 * const result: WebhookPostResult = { status: null, error: 'refused https://hooks.example.com: 10.0.0.5 is private' };
 */
export type WebhookPostResult = { status: number } | { status: null; error: string };

/**
 * The outbound side of webhooks, given by the server (its SSRF-safe client): whether a URL may be
 * registered at all, and one POST with no redirects followed and a deadline. Core signs the request;
 * the sender only carries it.
 *
 * @example
 * const sender: WebhookSender = {
 *   checkUrl: (url) => (url.protocol === 'https:' ? undefined : 'only https:// is allowed'),
 *   post: async ({ url, headers, body }) => ({ status: (await fetch(url, { method: 'POST', headers, body, redirect: 'manual' })).status }),
 * };
 */
export interface WebhookSender {
  /**
   * Why the URL is refused at once, without resolving its name (its scheme, credentials, an IP literal
   * in a forbidden range), or `undefined`: what makes `POST /tenants/me/webhooks` answer `invalid_url`.
   */
  checkUrl(url: URL): string | undefined;
  /** Posts `body` to `url` with `headers`; resolves (never rejects) with what came back. */
  post(request: { url: string; headers: Record<string, string>; body: string }): Promise<WebhookPostResult>;
}
