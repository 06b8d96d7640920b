import type { Readable } from 'node:stream';
import { Agent, request as undiciRequest } from 'undici';
import { checkedConnector } from './checked-connector.js';
import { OutboundError } from './outbound-error.js';
import { originOf, urlRefusal } from './outbound-policy.js';
import { createAddressResolver } from './resolve-addresses.js';

/** The deadline of one request: connection, answer and body (`docs/http-api.md`, "Webhooks": 10 seconds). */
export const OUTBOUND_TIMEOUT_MS = 10_000;
/** The largest answer body read, in bytes: discovery documents, key sets, SAML metadata fit well below. */
export const OUTBOUND_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Options of {@link createOutboundClient}. */
export interface OutboundClientOptions {
  /** `OUTBOUND_ALLOW_LOOPBACK`: also loopback addresses, and `http://` to loopback. Default `false`. */
  allowLoopback?: boolean;
  /** `DNS_SERVERS` (`host:port`); unset: the system's resolvers. */
  dnsServers?: readonly string[];
  /** Default {@link OUTBOUND_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Default {@link OUTBOUND_MAX_RESPONSE_BYTES}. */
  maxResponseBytes?: number;
}

/** One request: what webhook deliveries, SAML metadata and OpenID Connect need, nothing more. */
export interface OutboundRequest {
  url: string | URL;
  /** Default `GET`. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The caller's own cancellation, on top of the client's deadline. */
  signal?: AbortSignal;
}

/** The answer: its status (a redirect is an answer like any other: never followed), headers and body. */
export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The whole body, at most the size cap (more is a `too_large` {@link OutboundError}). */
  body: Uint8Array;
}

/** The `init` the client's `fetch` reads (openid-client's `customFetch` passes these). */
export interface OutboundFetchInit {
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: string | Uint8Array | ArrayBuffer | URLSearchParams | ReadableStream | null;
  signal?: AbortSignal | null;
  /** Ignored: redirects are never followed (as with `manual`, the 3xx answer is returned). */
  redirect?: 'follow' | 'manual' | 'error';
}

/** The server's one way out to URLs that someone else chose. */
export interface OutboundClient {
  /** Sends one request; rejects with an {@link OutboundError} when it is refused or fails. */
  request(request: OutboundRequest): Promise<OutboundResponse>;
  /** The same as a `fetch`-compatible function (for openid-client's `customFetch`). */
  fetch(url: string | URL, init?: OutboundFetchInit): Promise<Response>;
  /** Closes the pooled connections (server shutdown). */
  close(): Promise<void>;
}

/** Statuses whose `Response` must have no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Drops an answer's body and its connection (destroying it errors the stream: nobody is left to care). */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

async function readCapped(body: Readable, cap: number, origin: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > cap) {
      discard(body);
      throw new OutboundError('too_large', `${origin} answered more than ${cap} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, v);
  return headers;
}

/**
 * The reference server's one outbound HTTP client, for every URL a tenant or a provider chose (OpenID
 * Connect discovery, tokens and keys; SAML metadata; webhook deliveries): `https://` only (plus `http://`
 * to loopback with `allowLoopback`); every address a name resolves to (with `DNS_SERVERS`) is judged
 * against the special-purpose ranges of `address-ranges.ts`, and the connection goes to the addresses
 * that were judged (undici's `Agent` with a checking `lookup`), so DNS rebinding cannot reach an internal
 * address; redirects are never followed; each request has a deadline and its answer a size cap. Failures
 * reject with an {@link OutboundError} (a `TypeError`, as `fetch`'s network failures are) whose message
 * names the origin and the reason, never a path, query, header or body.
 *
 * @example
 * const outbound = createOutboundClient({ allowLoopback: config.outbound.allowLoopback, dnsServers: config.sso.dnsServers });
 * const { status } = await outbound.request({ url: 'https://hooks.example.com/in', method: 'POST', body });
 */
export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const resolve = createAddressResolver(options.dnsServers);
  const policy = { allowLoopback: options.allowLoopback ?? false };
  const timeoutMs = options.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
  const cap = options.maxResponseBytes ?? OUTBOUND_MAX_RESPONSE_BYTES;
  const agent = new Agent({
    connect: checkedConnector(resolve, policy, timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function request(req: OutboundRequest): Promise<OutboundResponse> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      throw new OutboundError('refused', 'refused: not a URL');
    }
    const origin = originOf(url);
    const refusal = urlRefusal(url, policy);
    if (refusal) throw refusal;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    try {
      const answer = await undiciRequest(url, {
        dispatcher: agent,
        method: (req.method ?? 'GET') as 'GET',
        headers: req.headers ?? {},
        body: req.body ?? null,
        signal,
      });
      const length = Number(answer.headers['content-length']);
      if (Number.isFinite(length) && length > cap) {
        discard(answer.body);
        throw new OutboundError('too_large', `${origin} answered more than ${cap} bytes`);
      }
      const body = await readCapped(answer.body, cap, origin);
      return { status: answer.statusCode, headers: headersOf(answer.headers), body };
    } catch (err) {
      // The caller's own cancellation stays the caller's (openid-client reads its own timeout from it).
      if (req.signal?.aborted) throw req.signal.reason;
      if (err instanceof OutboundError) throw err;
      if (deadline.aborted)
        throw new OutboundError('timeout', `${origin} gave no complete answer within ${timeoutMs / 1000} s`, {
          cause: err,
        });
      const { code, message } = err as { code?: unknown; message?: unknown };
      throw new OutboundError(
        'network',
        `${origin}: ${typeof code === 'string' ? `${code} ` : ''}${message}`,
        {
          cause: err,
        },
      );
    }
  }

  async function fetchLike(input: string | URL, init: OutboundFetchInit = {}): Promise<Response> {
    const headers = Object.fromEntries(new Headers(init.headers ?? {}));
    let body: string | Uint8Array | undefined;
    const given = init.body;
    if (given === null || given === undefined) body = undefined;
    else if (typeof given === 'string' || given instanceof Uint8Array) body = given;
    else if (given instanceof ArrayBuffer) body = new Uint8Array(given);
    else if (given instanceof URLSearchParams) {
      body = given.toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    } else throw new TypeError('the outbound client sends no streamed request body');
    const answer = await request({
      url: input,
      method: init.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    if (answer.status < 200 || answer.status > 599)
      throw new OutboundError('network', `${originOf(new URL(input))} answered status ${answer.status}`);
    return new Response(NULL_BODY.has(answer.status) ? null : answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  }

  return {
    request,
    fetch: fetchLike,
    close: () => agent.close(),
  };
}
