import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { addressRefusal, type OutboundPolicy } from './outbound-policy.js';
import type { AddressResolver } from './resolve-addresses.js';

/**
 * A `lookup` for `net.connect`/`tls.connect` that resolves the name once, judges every address, and
 * hands the socket exactly those addresses: the address connected to is one that was checked, so a DNS
 * answer that changes between a check and the connection (rebinding) cannot reach an internal address.
 */
function checkedLookup(protocol: string, resolve: AddressResolver, policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refusal = addressRefusal(`${protocol}//${hostname}`, protocol, hostname, addresses, policy);
        if (refusal) return callback(refusal, '', 0);
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((a) => wanted === 0 || a.family === wanted);
        const first = usable[0];
        if (!first) {
          const err = Object.assign(new Error(`${hostname} has no IPv${wanted} address`), {
            code: 'ENOTFOUND',
          });
          return callback(err, '', 0);
        }
        if (options.all) return callback(null, usable);
        callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, '', 0),
    );
  };
}

/**
 * undici's connector with every address checked before the socket connects ({@link addressRefusal}):
 * a host name through {@link checkedLookup}, an IP literal (which `net.connect` does not look up) here.
 * `timeoutMs` bounds the connection (TCP and TLS handshake).
 *
 * @example
 * const agent = new Agent({ connect: checkedConnector(resolve, { allowLoopback: false }, 10_000) });
 */
export function checkedConnector(
  resolve: AddressResolver,
  policy: OutboundPolicy,
  timeoutMs: number,
): buildConnector.connector {
  const connectors = new Map(
    (['https:', 'http:'] as const).map((protocol) => [
      protocol,
      buildConnector({ timeout: timeoutMs, lookup: checkedLookup(protocol, resolve, policy) }),
    ]),
  );
  return (options, callback) => {
    const origin = `${options.protocol}//${options.host ?? options.hostname}`;
    const connect = connectors.get(options.protocol as 'https:' | 'http:');
    const literal = isIP(options.hostname) !== 0 ? [options.hostname] : undefined;
    const refusal = connect
      ? literal && addressRefusal(origin, options.protocol, options.hostname, literal, policy)
      : addressRefusal(origin, options.protocol, options.hostname, [], policy);
    if (refusal || !connect) return callback(refusal ?? new Error(`no connector for ${origin}`), null);
    connect(options, callback);
  };
}
