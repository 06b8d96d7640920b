import { Agent, request } from 'node:http';

/**
 * A request sent byte for byte as described: the path exactly as written (no URL normalisation, unlike
 * `fetch`), header values as given (latin1 bytes allowed), the body as a Buffer. What `fetch` would
 * "fix" (odd percent-encodings, `..` segments, non-ASCII header bytes) is what a fuzzer wants to send.
 */
export interface RawRequest {
  method: string;
  /** Everything after the host: path and query string, sent as is. */
  path: string;
  /** Header name to value; an array sends the header once per value. */
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body decoded as UTF-8. */
  text: string;
  /** `JSON.parse(text)` when that works, otherwise `undefined`. */
  json: unknown;
}

/**
 * Bytes of the request line and headers as sent (roughly: Node adds Host and Connection). Node's HTTP
 * server refuses a head above 16 KiB (`--max-http-header-size`) with a bare 431 before the app sees it.
 */
export function headSize(req: RawRequest): number {
  let n = req.method.length + req.path.length + 40;
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of [value].flat()) n += name.length + v.length + 4;
  }
  return n;
}

/** One keep-alive connection pool per test file is plenty: the fuzzer sends one request at a time. */
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/**
 * Sends `req` to `baseUrl` (`http://127.0.0.1:<port>`) and reads the whole answer.
 *
 * @example const r = await rawRequest(url, { method: 'GET', path: '/api/v1/tenants/%E0%A4%A', headers: {} });
 */
export async function rawRequest(baseUrl: string, req: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  try {
    return await send(baseUrl, req, timeoutMs);
  } catch (err) {
    // A kept-alive socket the server closed just as it was reused: the request never arrived. Once more.
    if ((err as { reusedSocket?: boolean }).reusedSocket) return send(baseUrl, req, timeoutMs);
    throw err;
  }
}

function send(baseUrl: string, req: RawRequest, timeoutMs: number): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(req.body.length);
    const r = request(
      { agent, host: hostname, port, method: req.method, path: req.path, headers, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ECONNRESET' && r.reusedSocket ? Object.assign(err, { reusedSocket: true }) : err);
    });
    r.end(req.body);
  });
}

/** Closes the pooled connections (call in `afterAll`, before the server closes). */
export function closeRawConnections(): void {
  agent.destroy();
}
