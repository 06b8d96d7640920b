import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The script every test page carries: `call()` runs a fetch and reports what the page could observe
 * (status, body and readable headers, or the error a blocked response turns into); `postForm()`
 * submits an HTML form the way a classic cross-site request forgery does.
 */
const PAGE_SCRIPT = `
window.call = async (url, init) => {
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    let body = null;
    try { body = JSON.parse(text); } catch { body = text === '' ? null : text; }
    return { ok: true, status: res.status, body, headers: Object.fromEntries(res.headers) };
  } catch (err) {
    return { ok: false, error: err.name, message: err.message };
  }
};
window.postForm = (action, fields, enctype) => {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = action;
  form.enctype = enctype;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
};
`;

/** What a page's `call()` resolves to. */
export type CallResult =
  | { ok: true; status: number; body: unknown; headers: Record<string, string> }
  | { ok: false; error: string; message: string };

/** The helpers `PAGE_SCRIPT` installs on `window`, for typing `page.evaluate` callbacks. */
export interface PageHelpers {
  call(url: string, init: Record<string, unknown>): Promise<CallResult>;
  postForm(action: string, fields: Record<string, string>, enctype: string): void;
  document: { cookie: string };
  navigator: { userAgent: string };
}

/** A tiny static site: one HTML page (with {@link PAGE_SCRIPT}) on every path but `/favicon.ico`. */
export interface PageServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the test page on an ephemeral port on every local address, so the same server is reachable as
 * `http://localhost:<port>` and `http://127.0.0.1:<port>`. `script`, when given, is served at `/script.js`
 * and loaded by the page after its helpers.
 *
 * @example
 * const site = await startPageServer('app');
 * await page.goto(`http://localhost:${site.port}/`);
 */
export async function startPageServer(title: string, script = ''): Promise<PageServer> {
  // `script` (a bundle the test made) is served beside the page, not inlined, so a `</script>` in it is harmless.
  const tag = script === '' ? '' : '<script src="/script.js"></script>';
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><script>${PAGE_SCRIPT}</script>${tag}</head><body><h1>${title}</h1></body></html>`;
  const server = createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(404).end();
      return;
    }
    if (req.url === '/script.js' && script !== '') {
      res
        .writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' })
        .end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
