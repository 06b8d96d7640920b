/**
 * Why an outbound request failed. `refused`: the server would not connect (scheme, credentials in the
 * URL, or an address it never connects to); `unresolved`: the name has no address; `timeout`: no
 * complete answer within the deadline; `too_large`: the answer exceeded the size cap; `network`: the
 * connection failed (refused, reset, TLS).
 */
export type OutboundFailure = 'refused' | 'unresolved' | 'timeout' | 'too_large' | 'network';

/**
 * The setting that opens `http://` and loopback, said in every refusal it would have allowed, so the
 * operator of a development server reads in the log what to change.
 */
export const ALLOW_LOOPBACK_HINT =
  'OUTBOUND_ALLOW_LOOPBACK=true (or its older name SSO_ALLOW_INSECURE_ISSUERS) allows http:// and loopback addresses, for development and tests only (refused in production)';

/**
 * An outbound request that failed, with its `failure` and a message in words naming the origin and the
 * reason (never a path, query, header or body: no token or secret). Like `fetch`, the client rejects
 * with a `TypeError` on a network failure: callers that handle `fetch`'s errors handle these, and
 * openid-client passes a `TypeError` through as it is instead of wrapping it in "something went wrong".
 *
 * @example
 * try { await outbound.request({ url }); } catch (err) { if (err instanceof OutboundError && err.failure === 'refused') … }
 */
export class OutboundError extends TypeError {
  override readonly name = 'OutboundError';
  readonly failure: OutboundFailure;
  constructor(failure: OutboundFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.failure = failure;
  }
}

/**
 * The {@link OutboundError} in `err` or in its chain of causes (a library may wrap it), or `undefined`.
 *
 * @example
 * const reason = outboundErrorIn(err)?.message ?? 'the provider answered an error';
 */
export function outboundErrorIn(err: unknown): OutboundError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth += 1)
    if (e instanceof OutboundError) return e;
  return undefined;
}
