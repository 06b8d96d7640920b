import { BlockList, isIP } from 'node:net';
import type Koa from 'koa';

/**
 * Parses `TRUSTED_PROXIES`: comma-separated addresses and CIDRs (IPv4 or IPv6). Returns the list, or
 * the entries that are not addresses.
 *
 * @example
 * parseTrustedProxies('10.0.0.0/8, ::1'); // { ok: true, list: BlockList }
 */
export function parseTrustedProxies(
  value: string,
): { ok: true; list: BlockList } | { ok: false; bad: string[] } {
  const list = new BlockList();
  const bad: string[] = [];
  for (const entry of value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? undefined : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      extra !== undefined ||
      (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > max))
    ) {
      bad.push(entry);
      continue;
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return bad.length > 0 ? { ok: false, bad } : { ok: true, list };
}

/** The socket peer's address, IPv4-mapped IPv6 (`::ffff:10.0.0.1`) as IPv4. */
function peerOf(ctx: Koa.Context): string {
  const raw = ctx.req.socket.remoteAddress ?? '';
  return raw.startsWith('::ffff:') && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
}

/**
 * Honours `X-Forwarded-For` only from a trusted proxy: when the socket peer is not in `trusted`, the
 * header is removed before anything reads `ctx.ip`, so a client that connects directly cannot choose
 * its own address (and with it its rate-limit key and the address recorded on its sessions). Put it
 * first. With `TRUST_PROXY` hops, Koa then takes the address that many hops back, as before.
 *
 * @example app.use(onlyTrustedProxies(parseTrustedProxies('10.0.0.0/8').list));
 */
export function onlyTrustedProxies(trusted: BlockList): Koa.Middleware {
  return async (ctx, next) => {
    const peer = peerOf(ctx);
    const family = isIP(peer);
    if (family === 0 || !trusted.check(peer, family === 6 ? 'ipv6' : 'ipv4')) {
      delete ctx.req.headers['x-forwarded-for'];
    }
    await next();
  };
}
