import { OPERATIONS, type OperationId, type OperationTypes } from './contract.generated.js';
import { errorOf, networkError, TenantAuthClientError } from './errors.js';
import type { ClientClock, FetchLike } from './options.js';

/** @internal The path parameters, query and body of a call, as {@link Transport.call} takes them. */
export interface CallInput {
  params?: object | undefined;
  query?: object | undefined;
  body?: unknown;
}

/** @internal How one call is made, beyond the operation's own method and path. */
export interface CallOptions {
  /** The headers that authenticate the request; asked for once the URL is known. */
  credentials?: () => Promise<Record<string, string>>;
  /** An answer that is a result although it is no success (the `503` of a degraded health). */
  accept?: (response: Response) => boolean;
  /** What the body of a success must be, beyond a JSON object, for the caller to rely on it. */
  expect?: (data: unknown) => boolean;
}

/** @internal A success: its body, when the request was sent (client clock), and the response. */
export interface Answer<K extends OperationId> {
  data: OperationTypes[K]['response'];
  receivedAt: number;
  response: Response;
}

/**
 * @internal The HTTP side of the client: URLs from the contract's operations, `credentials` of the mode
 * (cookie: `include`; bearer: `omit`), problem+json answers as {@link TenantAuthClientError}s, and a
 * success body checked before anyone reads it. It knows nothing of sessions or refreshes.
 */
export interface Transport {
  /** Calls an operation; throws a {@link TenantAuthClientError} unless it succeeded. */
  call<K extends OperationId>(operation: K, input: CallInput, options?: CallOptions): Promise<Answer<K>>;
  /** `fetch` with the mode's `credentials`; no answer at all is `unavailable`. */
  fetch(url: string, init: RequestInit): Promise<Response>;
}

/** @internal The options of {@link createTransport}. */
export interface TransportOptions {
  baseUrl: string;
  mode: 'cookie' | 'bearer';
  fetch: FetchLike;
  clock: ClientClock;
}

/** The URL of a path of the contract (`{param}` placeholders) under `baseUrl`, with its query. */
function urlOf(
  baseUrl: string,
  path: string,
  params: Record<string, string> | undefined,
  query: object | undefined,
): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (typeof value !== 'string') throw new TypeError(`the path parameter ${name} is required`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  const qs = search.toString();
  return `${baseUrl}${filled}${qs ? `?${qs}` : ''}`;
}

/**
 * The body of a success, checked: JSON when there is one, and a JSON object where the operation answers
 * with one (anything else is no answer of tenant-auth: a proxy's page, a captive portal), then `expect`.
 */
function bodyOf(
  operation: OperationId,
  response: Response,
  text: string,
  expect: ((data: unknown) => boolean) | undefined,
): unknown {
  const invalid = (cause?: unknown) =>
    new TenantAuthClientError('http_error', `HTTP ${response.status}: not an answer of ${operation}`, {
      status: response.status,
      cause,
    });
  let data: unknown;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch (err) {
    throw invalid(err);
  }
  const answersBody = OPERATIONS[operation].success !== 204 && response.status !== 204;
  if (answersBody && (typeof data !== 'object' || data === null || Array.isArray(data))) throw invalid();
  if (expect && !expect(data)) throw invalid();
  return data;
}

/** @internal The transport of a client. */
export function createTransport(options: TransportOptions): Transport {
  const { baseUrl, clock } = options;
  const credentials: RequestInit['credentials'] = options.mode === 'cookie' ? 'include' : 'omit';

  async function send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await options.fetch(url, { ...init, credentials });
    } catch (err) {
      throw networkError(err);
    }
  }

  return {
    fetch: send,
    async call(operation, input, callOptions = {}) {
      const spec = OPERATIONS[operation];
      const url = urlOf(baseUrl, spec.path, input.params as Record<string, string> | undefined, input.query);
      const headers = { ...(await callOptions.credentials?.()) };
      headers.accept = 'application/json, application/problem+json';
      const init: RequestInit = { method: spec.method, headers };
      if (input.body !== undefined) {
        headers['content-type'] = 'application/json';
        init.body = JSON.stringify(input.body);
      }
      const sentAt = clock.now();
      const response = await send(url, init);
      let text: string;
      try {
        text = await response.text();
      } catch (err) {
        throw networkError(err);
      }
      // The contract's status of success, or any other 2xx a later version might answer.
      if (!response.ok && !callOptions.accept?.(response)) throw errorOf(response, text, clock.now());
      const data = bodyOf(operation, response, text, callOptions.expect);
      return { data: data as OperationTypes[typeof operation]['response'], receivedAt: sentAt, response };
    },
  };
}
