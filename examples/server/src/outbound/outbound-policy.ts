import { isIP } from 'node:net';
import { judgeAddress } from './address-ranges.js';
import { ALLOW_LOOPBACK_HINT, OutboundError } from './outbound-error.js';

/**
 * Where the outbound client may go (`docs/http-api.md`, "Webhooks", outbound safety): `https://` to
 * public addresses; with `allowLoopback` (`OUTBOUND_ALLOW_LOOPBACK`, never in production) also loopback
 * addresses, and `http://` to a host every address of which is loopback.
 */
export interface OutboundPolicy {
  allowLoopback: boolean;
}

/** `scheme://host[:port]` of a URL: what a message may name (never a path or query: they can hold secrets). */
export function originOf(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * Why the URL is refused before any name is resolved, or `undefined`: its scheme, credentials in it, or
 * an IP address as its host that the server never connects to. What a form can tell at once (a webhook
 * URL's `400 invalid_url`); a host name's addresses are judged when the connection is made
 * ({@link addressRefusal}).
 *
 * @example
 * urlRefusal(new URL('https://169.254.169.254/latest'), { allowLoopback: false })?.message;
 */
export function urlRefusal(url: URL, policy: OutboundPolicy): OutboundError | undefined {
  const origin = originOf(url);
  if (url.username !== '' || url.password !== '')
    return new OutboundError('refused', `refused ${origin}: a URL with credentials in it`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) return addressRefusal(origin, url.protocol, host, [host], policy);
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return policy.allowLoopback
      ? undefined
      : new OutboundError('refused', `refused ${origin}: only https:// is allowed; ${ALLOW_LOOPBACK_HINT}`);
  return new OutboundError('refused', `refused ${origin}: only https:// is allowed`);
}

/**
 * Why connecting to `addresses` (every address `hostname` resolved to) over `protocol` is refused, or
 * `undefined`. One address the server never connects to refuses them all: a name that mixes a public
 * and an internal address is not trusted with either.
 *
 * @example
 * addressRefusal('https://idp.example.com', 'https:', 'idp.example.com', ['10.0.0.5'], { allowLoopback: false });
 */
export function addressRefusal(
  origin: string,
  protocol: string,
  hostname: string,
  addresses: readonly string[],
  policy: OutboundPolicy,
): OutboundError | undefined {
  const named = (address: string) => (address === hostname ? address : `${hostname} resolves to ${address}`);
  const http = protocol === 'http:';
  if (!http && protocol !== 'https:')
    return new OutboundError('refused', `refused ${origin}: only https:// is allowed`);
  if (http && !policy.allowLoopback)
    return new OutboundError(
      'refused',
      `refused ${origin}: only https:// is allowed; ${ALLOW_LOOPBACK_HINT}`,
    );
  if (addresses.length === 0)
    return new OutboundError('unresolved', `refused ${origin}: ${hostname} has no address`);
  for (const address of addresses) {
    const verdict = judgeAddress(address);
    if (verdict.kind === 'refused')
      return new OutboundError('refused', `refused ${origin}: ${named(address)}, ${verdict.reason}`);
    if (verdict.kind === 'loopback' && !policy.allowLoopback)
      return new OutboundError(
        'refused',
        `refused ${origin}: ${named(address)}, ${verdict.reason}; ${ALLOW_LOOPBACK_HINT}`,
      );
    if (http && verdict.kind !== 'loopback')
      return new OutboundError(
        'refused',
        `refused ${origin}: http:// goes to loopback only, and ${named(address)}, a public address`,
      );
  }
  return undefined;
}
