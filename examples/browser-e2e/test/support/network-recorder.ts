import type { BrowserContext, Page } from 'playwright-core';

/** What Chromium itself saw of one request, from the DevTools protocol's Network domain. */
export interface NetworkEntry {
  requestId: string;
  method?: string;
  url?: string;
  /** A CORS preflight the browser sent on its own before the page's request. */
  preflight: boolean;
  /** The headers that went on the wire, `cookie` included (lower-case names). */
  sentHeaders?: Record<string, string>;
  /** Cookies the browser had for the URL but did not send, with Chromium's reasons (`SameSiteStrict`, …). */
  withheldCookies?: { name: string; reasons: string[] }[];
  status?: number;
  /** Response headers as received, before any CORS filtering (lower-case names). */
  responseHeaders?: Record<string, string>;
  /** Chromium's CORS verdict when it blocked the response (`MissingAllowOriginHeader`, …). */
  corsError?: string;
  outcome?: 'finished' | 'failed';
}

/** Records a page's network traffic as the browser sees it, preflights and withheld cookies included. */
export interface NetworkRecorder {
  /** Index of the next entry, to wait only for requests started after this point. */
  mark(): number;
  /** Resolves with the first entry from `from` on that matches, as soon as it does. */
  waitFor(match: (entry: NetworkEntry) => boolean, from: number): Promise<NetworkEntry>;
}

const lower = (headers: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));

/**
 * Opens a DevTools session on `page` and records its requests. Playwright's own request events do not
 * show preflights nor the cookies of a request whose response CORS blocked, so the tests read them here.
 *
 * @example
 * const net = await recordNetwork(context, page);
 * const from = net.mark();
 * await page.evaluate(...);
 * const preflight = await net.waitFor((e) => e.preflight && e.responseHeaders !== undefined, from);
 */
export async function recordNetwork(context: BrowserContext, page: Page): Promise<NetworkRecorder> {
  const cdp = await context.newCDPSession(page);
  const entries: NetworkEntry[] = [];
  const byId = new Map<string, NetworkEntry>();
  let waiters: { match: (e: NetworkEntry) => boolean; from: number; resolve: (e: NetworkEntry) => void }[] =
    [];

  const update = (requestId: string, change: (entry: NetworkEntry) => void) => {
    let entry = byId.get(requestId);
    if (!entry) {
      entry = { requestId, preflight: false };
      byId.set(requestId, entry);
      entries.push(entry);
    }
    change(entry);
    const index = entries.indexOf(entry);
    const current = entry;
    waiters = waiters.filter((w) => {
      if (index < w.from || !w.match(current)) return true;
      w.resolve(current);
      return false;
    });
  };

  cdp.on('Network.requestWillBeSent', (e) =>
    update(e.requestId, (entry) => {
      entry.method = e.request.method;
      entry.url = e.request.url;
      entry.preflight = entry.preflight || e.type === 'Preflight' || e.initiator.type === 'preflight';
    }),
  );
  cdp.on('Network.requestWillBeSentExtraInfo', (e) =>
    update(e.requestId, (entry) => {
      entry.sentHeaders = lower(e.headers);
      entry.withheldCookies = e.associatedCookies
        .filter((c) => c.blockedReasons.length > 0)
        .map((c) => ({ name: c.cookie.name, reasons: c.blockedReasons }));
    }),
  );
  cdp.on('Network.responseReceived', (e) =>
    update(e.requestId, (entry) => {
      entry.preflight = entry.preflight || e.type === 'Preflight';
      entry.status = e.response.status;
      entry.responseHeaders = lower(e.response.headers);
    }),
  );
  // Also sent for responses CORS then hides from the page (which get no responseReceived).
  cdp.on('Network.responseReceivedExtraInfo', (e) =>
    update(e.requestId, (entry) => {
      entry.status ??= e.statusCode;
      entry.responseHeaders ??= lower(e.headers);
    }),
  );
  cdp.on('Network.loadingFinished', (e) =>
    update(e.requestId, (entry) => {
      entry.outcome = 'finished';
    }),
  );
  cdp.on('Network.loadingFailed', (e) =>
    update(e.requestId, (entry) => {
      entry.outcome = 'failed';
      if (e.corsErrorStatus) entry.corsError = e.corsErrorStatus.corsError;
    }),
  );
  await cdp.send('Network.enable');

  return {
    mark: () => entries.length,
    waitFor(match, from) {
      const seen = entries.slice(from).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, from, resolve }));
    },
  };
}
