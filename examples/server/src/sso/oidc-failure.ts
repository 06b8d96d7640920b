import { ALLOW_LOOPBACK_HINT, outboundErrorIn } from '../outbound/outbound-error.js';

/** openid-client's code for an `http://` URL it refused because insecure requests were not allowed. */
const HTTP_REFUSED = 'OAUTH_HTTP_REQUEST_FORBIDDEN';

/**
 * Why a request to an identity provider failed, in words for the log: the outbound client's reason when
 * it refused or failed (found in the chain of causes, however the library wrapped it), openid-client's
 * refusal of an `http://` URL with the setting that would allow one, or else the error's own message.
 * Never a cause's message otherwise: only what these libraries write, no response body, no token.
 *
 * @example
 * logger.warn({ reason: providerFailureReason(err) }, 'SSO discovery failed');
 */
export function providerFailureReason(err: unknown): string {
  const outbound = outboundErrorIn(err);
  if (outbound) return outbound.message;
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(err);
  return code === HTTP_REFUSED ? `${text}; ${ALLOW_LOOPBACK_HINT}` : text;
}
