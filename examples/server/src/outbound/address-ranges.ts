import { isIP } from 'node:net';

/**
 * What the outbound client does with an address of a range: `refuse` it; `loopback`: refuse it unless
 * loopback is open (`OUTBOUND_ALLOW_LOOPBACK`); `as-ipv4`: judge it as the IPv4 address it carries (the
 * system connects to that address); `public-ipv4-only`: allow it only when the IPv4 address it carries is
 * public (loopback included in the refusal: a translator never reaches this machine's loopback).
 */
export type RangeDecision = 'refuse' | 'loopback' | 'as-ipv4' | 'public-ipv4-only';

/** One special-purpose range: the CIDR, what lives there (with its source), and the decision. */
export interface SpecialRange {
  range: string;
  what: string;
  decision: RangeDecision;
}

/**
 * The IPv4 ranges the server never connects to (first match wins; any other address is public). The
 * server README's "Outbound requests" table shows this list; a test keeps the two equal.
 */
export const IPV4_RANGES: readonly SpecialRange[] = [
  { range: '0.0.0.0/8', what: '"this network" (RFC 791; 0.0.0.0 reaches this host)', decision: 'refuse' },
  { range: '10.0.0.0/8', what: 'private (RFC 1918)', decision: 'refuse' },
  { range: '100.64.0.0/10', what: 'shared address space, carrier-grade NAT (RFC 6598)', decision: 'refuse' },
  { range: '127.0.0.0/8', what: 'loopback (RFC 1122)', decision: 'loopback' },
  {
    range: '169.254.0.0/16',
    what: 'link-local, where cloud metadata services answer (RFC 3927)',
    decision: 'refuse',
  },
  { range: '172.16.0.0/12', what: 'private (RFC 1918)', decision: 'refuse' },
  { range: '192.0.0.0/24', what: 'IETF protocol assignments (RFC 6890)', decision: 'refuse' },
  { range: '192.0.2.0/24', what: 'documentation, TEST-NET-1 (RFC 5737)', decision: 'refuse' },
  { range: '192.88.99.0/24', what: '6to4 relay anycast, deprecated (RFC 7526)', decision: 'refuse' },
  { range: '192.168.0.0/16', what: 'private (RFC 1918)', decision: 'refuse' },
  { range: '198.18.0.0/15', what: 'benchmarking (RFC 2544)', decision: 'refuse' },
  { range: '198.51.100.0/24', what: 'documentation, TEST-NET-2 (RFC 5737)', decision: 'refuse' },
  { range: '203.0.113.0/24', what: 'documentation, TEST-NET-3 (RFC 5737)', decision: 'refuse' },
  { range: '224.0.0.0/4', what: 'multicast (RFC 5771)', decision: 'refuse' },
  { range: '255.255.255.255/32', what: 'limited broadcast (RFC 919)', decision: 'refuse' },
  { range: '240.0.0.0/4', what: 'reserved (RFC 1112)', decision: 'refuse' },
];

/**
 * The IPv6 ranges, first match wins. Only global unicast (`2000::/3`) outside the listed blocks is
 * public: the last rows refuse everything else, and the forms that carry an IPv4 address come before
 * them with their own decision.
 */
export const IPV6_RANGES: readonly SpecialRange[] = [
  { range: '::/128', what: 'unspecified (RFC 4291)', decision: 'refuse' },
  { range: '::1/128', what: 'loopback (RFC 4291)', decision: 'loopback' },
  { range: '::ffff:0:0/96', what: 'IPv4-mapped (RFC 4291)', decision: 'as-ipv4' },
  { range: '64:ff9b::/96', what: 'NAT64 well-known prefix (RFC 6052)', decision: 'public-ipv4-only' },
  { range: '64:ff9b:1::/48', what: 'local-use NAT64 (RFC 8215)', decision: 'refuse' },
  { range: '::ffff:0:0:0/96', what: 'IPv4-translated, SIIT (RFC 2765)', decision: 'refuse' },
  { range: '::/96', what: 'IPv4-compatible, deprecated (RFC 4291)', decision: 'refuse' },
  { range: '100::/64', what: 'discard-only (RFC 6666)', decision: 'refuse' },
  { range: '::/3', what: 'reserved, outside global unicast (RFC 4291)', decision: 'refuse' },
  { range: '2001::/32', what: 'Teredo (RFC 4380)', decision: 'refuse' },
  { range: '2001:2::/48', what: 'benchmarking (RFC 5180)', decision: 'refuse' },
  { range: '2001::/23', what: 'IETF protocol assignments (RFC 2928)', decision: 'refuse' },
  { range: '2001:db8::/32', what: 'documentation (RFC 3849)', decision: 'refuse' },
  {
    range: '2002::/16',
    what: '6to4: a relay delivers to the IPv4 address inside, deprecated (RFC 7526)',
    decision: 'refuse',
  },
  { range: '3fff::/20', what: 'documentation (RFC 9637)', decision: 'refuse' },
  { range: 'fc00::/7', what: 'unique local (RFC 4193)', decision: 'refuse' },
  { range: 'fe80::/10', what: 'link-local (RFC 4291)', decision: 'refuse' },
  { range: 'fec0::/10', what: 'site-local, deprecated (RFC 3879)', decision: 'refuse' },
  { range: 'ff00::/8', what: 'multicast (RFC 4291)', decision: 'refuse' },
  { range: '4000::/2', what: 'reserved, outside global unicast (RFC 4291)', decision: 'refuse' },
  { range: '8000::/1', what: 'reserved, outside global unicast (RFC 4291)', decision: 'refuse' },
];

/** An IPv4 address as a 32-bit number. */
function ipv4Number(text: string): bigint {
  return text.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address (already valid by `isIP`) as a 128-bit number; a trailing dotted quad is read too. */
function ipv6Number(text: string): bigint {
  let address = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (dotted) {
    const n = ipv4Number(dotted);
    address = `${address.slice(0, -dotted.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((n, group) => (n << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

interface CompiledRange extends SpecialRange {
  base: bigint;
  shift: bigint;
}

function compile(ranges: readonly SpecialRange[], width: bigint, parse: (a: string) => bigint) {
  return ranges.map((entry): CompiledRange => {
    const [address = '', bits = ''] = entry.range.split('/');
    const shift = width - BigInt(Number(bits));
    return { ...entry, base: parse(address) >> shift, shift };
  });
}

const V4 = compile(IPV4_RANGES, 32n, ipv4Number);
const V6 = compile(IPV6_RANGES, 128n, ipv6Number);

/**
 * What the outbound client may do with one IP address: connect (`public`), connect only while loopback
 * is open (`loopback`), or never (`refused`); `reason` names the range in words.
 */
export type AddressVerdict =
  | { kind: 'public' }
  | { kind: 'loopback'; reason: string }
  | { kind: 'refused'; reason: string };

const reasonOf = (range: CompiledRange) => `in ${range.range}, ${range.what}`;

function judgeIpv4(n: bigint): AddressVerdict {
  const range = V4.find((r) => n >> r.shift === r.base);
  if (!range) return { kind: 'public' };
  return { kind: range.decision === 'loopback' ? 'loopback' : 'refused', reason: reasonOf(range) };
}

/**
 * Judges one IP address against {@link IPV4_RANGES} and {@link IPV6_RANGES}. Anything that is not an IP
 * address is refused.
 *
 * @example
 * judgeAddress('10.0.0.5'); // { kind: 'refused', reason: 'in 10.0.0.0/8, private (RFC 1918)' }
 * judgeAddress('::ffff:127.0.0.1'); // { kind: 'loopback', reason: 'IPv4-mapped (RFC 4291) … loopback' }
 */
export function judgeAddress(address: string): AddressVerdict {
  const family = isIP(address);
  if (family === 4) return judgeIpv4(ipv4Number(address));
  if (family !== 6) return { kind: 'refused', reason: 'not an IP address' };
  const n = ipv6Number(address);
  const range = V6.find((r) => n >> r.shift === r.base);
  if (!range) return { kind: 'public' };
  if (range.decision === 'refuse' || range.decision === 'loopback')
    return { kind: range.decision === 'loopback' ? 'loopback' : 'refused', reason: reasonOf(range) };
  const inner = judgeIpv4(n & 0xffffffffn);
  if (inner.kind === 'public') return inner;
  const reason = `${reasonOf(range)}, of an IPv4 address ${inner.reason}`;
  // A mapped address is the IPv4 address itself to the system; a translator never reaches our loopback.
  return { kind: range.decision === 'as-ipv4' ? inner.kind : 'refused', reason };
}
