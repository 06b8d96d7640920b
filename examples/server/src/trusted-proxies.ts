import { BlockList, isIP } from 'node:net';
import type Koa from 'koa';

/**
 * Parses `TRUSTED_PROXIES`: comma-separated addresses and CIDRs (IPv4 or IPv6). Returns the list, or
 * the entries that are not addresses: a malformed entry (an empty or out-of-range prefix length, stray
 * characters, a bad address) is refused, never read as a wider range.
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
    // A zone (`fe80::1%eth0`) names an interface, not a peer address.
    const family = address.includes('%') ? 0 : isIP(address);
    // Digits only, without a leading zero: `Number()` would read `''` (from `10.0.0.1/`) as 0, so a typo
    // trusted every peer, and would also take ' 8', '0x8', '1e1' or '+8'.
    const prefix = bits === undefined ? undefined : /^(0|[1-9]\d{0,2})$/.test(bits) ? Number(bits) : -1;
    const max = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || (prefix !== undefined && (prefix < 0 || prefix > max))) {
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
