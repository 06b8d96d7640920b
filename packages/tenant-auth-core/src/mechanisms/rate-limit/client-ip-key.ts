/** @internal The key every address that cannot be parsed shares: garbage is limited together. */
export const UNKNOWN_IP_KEY = 'ip:unknown';

/** @internal Options of `clientIpKey`. */
export interface ClientIpKeyOptions {
  /**
   * IPv6 addresses are counted per prefix of this many bits (default 64: one /64 is what a single host,
   * a home or a cloud VM usually gets, and it can pick any of its 2^64 addresses per request).
   */
  ipv6PrefixLength?: number;
}

/**
 * @internal The rate-limit key of a client address. IPv4 counts per address (`ip:203.0.113.7`); an IPv4-mapped IPv6
 * address (`::ffff:203.0.113.7`, `::ffff:cb00:7107`) and a NAT64 address (`64:ff9b::203.0.113.7`) count as
 * that IPv4 address; other IPv6 addresses count per prefix (`ip:2001:db8:1:2::/64`), zone ids dropped.
 * Anything unparsable yields `UNKNOWN_IP_KEY`; it never throws for a bad address.
 *
 * @example
 * clientIpKey('::ffff:203.0.113.7'); // 'ip:203.0.113.7'
 * clientIpKey('2001:db8:1:2:aaaa::1'); // 'ip:2001:db8:1:2::/64'
 * clientIpKey('fe80::1%eth0', { ipv6PrefixLength: 128 }); // 'ip:fe80::1/128'
 * clientIpKey('not an ip'); // 'ip:unknown'
 */
export function clientIpKey(ip: string, options: ClientIpKeyOptions = {}): string {
  const { ipv6PrefixLength = 64 } = options;
  if (!Number.isInteger(ipv6PrefixLength) || ipv6PrefixLength < 0 || ipv6PrefixLength > 128) {
    throw new RangeError(`ipv6PrefixLength must be an integer from 0 to 128, got ${ipv6PrefixLength}`);
  }
  if (typeof ip !== 'string' || ip.length === 0 || ip.length > 100) return UNKNOWN_IP_KEY;
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);

  const v4 = parseIpv4(text);
  if (v4 !== undefined) return `ip:${v4.join('.')}`;

  const v6 = parseIpv6(text);
  if (v6 === undefined) return UNKNOWN_IP_KEY;
  if (isPrefix(v6, IPV4_MAPPED) || isPrefix(v6, NAT64_WELL_KNOWN)) return `ip:${v6.slice(12).join('.')}`;
  return `ip:${formatIpv6(mask(v6, ipv6PrefixLength))}/${ipv6PrefixLength}`;
}

/**
 * @internal Who a hashing operation is for, for the pool's fair share: the client's network, or nobody
 * (no share limit) when the address is absent or unparsable, as for a direct call without a context.
 */
export function hashingOwner(ip: string | null | undefined): { owner: string | undefined } {
  const { network } = clientKeys(ip ?? '');
  return { owner: network === UNKNOWN_IP_KEY ? undefined : network };
}

/**
 * @internal The keys of a client address, from its own to coarser ones, and the key of its network:
 * IPv4 `a.b.c.d` then its /24; IPv6 its /64, /56 and /48 (IPv4-mapped and NAT64 addresses count as
 * IPv4). When a budget's store partition is full, the client is counted under the next key of the
 * ladder; the network key (a /24 or a /48: one allocation) carries the aggregate budget.
 */
export function clientKeys(ip: string): { readonly ladder: readonly string[]; readonly network: string } {
  const known = recentKeys.get(ip);
  if (known) return known;
  const keys = Object.freeze(computeClientKeys(ip));
  Object.freeze(keys.ladder);
  // Bounded: a flood of fresh addresses empties it now and then instead of growing it.
  if (recentKeys.size >= RECENT_KEYS_MAX) recentKeys.clear();
  recentKeys.set(ip, keys);
  return keys;
}

/** The keys of the addresses seen lately: parsing an address on every request was a tenth of a request. */
const recentKeys = new Map<string, { readonly ladder: readonly string[]; readonly network: string }>();
const RECENT_KEYS_MAX = 4096;

function computeClientKeys(ip: string): { ladder: string[]; network: string } {
  const own = clientIpKey(ip);
  if (own === UNKNOWN_IP_KEY) return { ladder: [own], network: own };
  if (!own.includes('/')) {
    const network = `${own.slice(0, own.lastIndexOf('.'))}.0/24`;
    return { ladder: [own, network], network };
  }
  const ladder = [64, 56, 48].map((bits) => clientIpKey(ip, { ipv6PrefixLength: bits }));
  return { ladder, network: ladder[2] as string };
}

/** `::ffff:0:0/96` */
const IPV4_MAPPED = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
/** `64:ff9b::/96` (RFC 6052): IPv4 clients reaching an IPv6-only server through NAT64. */
const NAT64_WELL_KNOWN = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];

function isPrefix(bytes: number[], prefix: number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

/** Strict dotted quad: four decimal parts 0-255 without leading zeros (which some parsers read as octal). */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

/** RFC 4291 text form: `::` once at most, 1-4 hex digits per group, an optional trailing dotted quad, `%zone`. */
function parseIpv6(input: string): number[] | undefined {
  const zone = input.indexOf('%');
  const text = zone === -1 ? input : input.slice(0, zone);
  if (zone !== -1 && zone === input.length - 1) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0] ?? '', halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1] ?? '', true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** Groups of one side of `::`; the dotted quad is allowed only at the very end of the address. */
function parseGroups(text: string, mayEndWithIpv4: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (i === parts.length - 1 && mayEndWithIpv4 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return undefined;
      groups.push(Number.parseInt(part, 16));
    }
  }
  return groups;
}

function mask(bytes: number[], prefixLength: number): number[] {
  return bytes.map((b, i) => {
    const bits = Math.min(8, Math.max(0, prefixLength - i * 8));
    return b & ((0xff << (8 - bits)) & 0xff);
  });
}

/** RFC 5952 canonical form: lower case, no leading zeros, the longest run (>= 2) of zero groups as `::`. */
function formatIpv6(bytes: number[]): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLength < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
