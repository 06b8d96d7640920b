import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IPV4_RANGES, IPV6_RANGES, judgeAddress, type SpecialRange } from './address-ranges.js';

/*
 * The one list of address ranges the outbound client refuses, judged address by address: the first and
 * last address of each refused range, the public neighbours just outside, and the IPv6 forms that carry
 * an IPv4 address. The server README's table is the same list (the last test).
 */

const kind = (address: string) => judgeAddress(address).kind;

describe('judgeAddress', () => {
  it.each([
    ['0.0.0.0', 'refused', '0.0.0.0/8'],
    ['0.255.255.255', 'refused', '0.0.0.0/8'],
    ['10.0.0.0', 'refused', '10.0.0.0/8'],
    ['10.255.255.255', 'refused', '10.0.0.0/8'],
    ['100.64.0.0', 'refused', '100.64.0.0/10'],
    ['100.127.255.255', 'refused', '100.64.0.0/10'],
    ['127.0.0.1', 'loopback', '127.0.0.0/8'],
    ['127.255.255.254', 'loopback', '127.0.0.0/8'],
    ['169.254.169.254', 'refused', '169.254.0.0/16'],
    ['172.16.0.0', 'refused', '172.16.0.0/12'],
    ['172.31.255.255', 'refused', '172.16.0.0/12'],
    ['192.0.0.170', 'refused', '192.0.0.0/24'],
    ['192.0.2.1', 'refused', '192.0.2.0/24'],
    ['192.88.99.1', 'refused', '192.88.99.0/24'],
    ['192.168.0.1', 'refused', '192.168.0.0/16'],
    ['198.18.0.0', 'refused', '198.18.0.0/15'],
    ['198.19.255.255', 'refused', '198.18.0.0/15'],
    ['198.51.100.7', 'refused', '198.51.100.0/24'],
    ['203.0.113.7', 'refused', '203.0.113.0/24'],
    ['224.0.0.1', 'refused', '224.0.0.0/4'],
    ['239.255.255.255', 'refused', '224.0.0.0/4'],
    ['255.255.255.255', 'refused', '255.255.255.255/32'],
    ['240.0.0.1', 'refused', '240.0.0.0/4'],
    ['::', 'refused', '::/128'],
    ['::1', 'loopback', '::1/128'],
    ['::2', 'refused', '::/96'],
    ['::127.0.0.1', 'refused', '::/96'],
    ['::ffff:0:a00:1', 'refused', '::ffff:0:0:0/96'],
    ['64:ff9b:1::a00:1', 'refused', '64:ff9b:1::/48'],
    ['100::1', 'refused', '100::/64'],
    ['1234::1', 'refused', '::/3'],
    ['2001::1', 'refused', '2001::/32'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'refused', '2001::/32'],
    ['2001:2::1', 'refused', '2001:2::/48'],
    ['2001:10::1', 'refused', '2001::/23'],
    ['2001:db8::1', 'refused', '2001:db8::/32'],
    ['2002:808:808::1', 'refused', '2002::/16'],
    ['2002:7f00:1::1', 'refused', '2002::/16'],
    ['3fff::1', 'refused', '3fff::/20'],
    ['5f00::1', 'refused', '4000::/2'],
    ['fc00::1', 'refused', 'fc00::/7'],
    ['fd12:3456::1', 'refused', 'fc00::/7'],
    ['fe80::1', 'refused', 'fe80::/10'],
    ['febf:ffff::1', 'refused', 'fe80::/10'],
    ['fec0::1', 'refused', 'fec0::/10'],
    ['ff02::1', 'refused', 'ff00::/8'],
    ['8000::1', 'refused', '8000::/1'],
  ])('%s is %s (%s)', (address, expected, range) => {
    const verdict = judgeAddress(address);
    expect(verdict.kind).toBe(expected);
    expect(verdict.kind !== 'public' && verdict.reason).toContain(`in ${range},`);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001::1',
    '2001:200::1',
    '2003::1',
    '3ffe::1',
  ])('%s is public', (address) => {
    expect(kind(address)).toBe('public');
  });

  it('judges an IPv4-mapped address as its IPv4 address, loopback included', () => {
    expect(kind('::ffff:8.8.8.8')).toBe('public');
    expect(kind('::ffff:808:808')).toBe('public');
    expect(kind('::ffff:127.0.0.1')).toBe('loopback');
    expect(kind('::ffff:7f00:1')).toBe('loopback');
    for (const address of ['::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0.0.0.0'])
      expect(judgeAddress(address)).toEqual({
        kind: 'refused',
        reason: expect.stringMatching(/^in ::ffff:0:0\/96, IPv4-mapped \(RFC 4291\), of an IPv4 address in /),
      });
  });

  it('allows a NAT64 address (64:ff9b::/96) only when its IPv4 address is public, never loopback', () => {
    expect(kind('64:ff9b::8.8.8.8')).toBe('public');
    expect(kind('64:ff9b::808:808')).toBe('public');
    for (const address of ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::169.254.169.254', '64:ff9b::'])
      expect(kind(address), address).toBe('refused');
    expect(judgeAddress('64:ff9b::7f00:1')).toEqual({
      kind: 'refused',
      reason:
        'in 64:ff9b::/96, NAT64 well-known prefix (RFC 6052), of an IPv4 address in 127.0.0.0/8, loopback (RFC 1122)',
    });
  });

  it('refuses what is not an IP address', () => {
    for (const text of ['localhost', '', '1.2.3', '::g', '10.0.0.1/8'])
      expect(judgeAddress(text)).toEqual({ kind: 'refused', reason: 'not an IP address' });
  });

  it('lists each range once, as a valid CIDR whose address has no bits past its prefix', () => {
    for (const list of [IPV4_RANGES, IPV6_RANGES]) {
      const ranges = list.map((r) => r.range);
      expect(new Set(ranges).size).toBe(ranges.length);
    }
    // The first address of each range is judged by that range (its own row, or an earlier, narrower one).
    for (const { range } of [...IPV4_RANGES, ...IPV6_RANGES]) {
      const verdict = judgeAddress(range.split('/')[0] ?? '');
      expect(verdict.kind, range).not.toBe('public');
    }
  });
});

/** The README's row of one range. */
const rowOf = (r: SpecialRange) =>
  `| \`${r.range}\` | ${r.what} | ${
    {
      refuse: 'refused',
      loopback: 'refused; allowed with `OUTBOUND_ALLOW_LOOPBACK`',
      'as-ipv4': 'judged as the IPv4 address inside',
      'public-ipv4-only': 'allowed when the IPv4 address inside is public (never loopback)',
    }[r.decision]
  } |`;

describe('the server README', () => {
  it('shows the same list of ranges, in the same order', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const rows = readme.split('\n').filter((line) => /^\| `[0-9a-f:.]+\/\d+` \|/.test(line));
    expect(rows).toEqual([...IPV4_RANGES, ...IPV6_RANGES].map(rowOf));
  });
});
