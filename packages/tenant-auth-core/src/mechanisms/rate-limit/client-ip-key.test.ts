import { describe, expect, it } from 'vitest';
import { clientIpKey, UNKNOWN_IP_KEY } from './client-ip-key.js';

describe('clientIpKey', () => {
  it('keys IPv4 per address', () => {
    expect(clientIpKey('203.0.113.7')).toBe('ip:203.0.113.7');
    expect(clientIpKey(' 203.0.113.7 ')).toBe('ip:203.0.113.7');
    expect(clientIpKey('203.0.113.8')).not.toBe(clientIpKey('203.0.113.7'));
  });

  it('counts IPv4-mapped IPv6 as the IPv4 address, dotted or hex', () => {
    expect(clientIpKey('::ffff:203.0.113.7')).toBe('ip:203.0.113.7');
    expect(clientIpKey('::FFFF:cb00:7107')).toBe('ip:203.0.113.7');
    expect(clientIpKey('::ffff:0102:0304')).toBe('ip:1.2.3.4');
    expect(clientIpKey('0:0:0:0:0:ffff:1.2.3.4')).toBe('ip:1.2.3.4');
    expect(clientIpKey('[::ffff:1.2.3.4]')).toBe('ip:1.2.3.4');
  });

  it('counts NAT64 addresses (64:ff9b::/96) as the IPv4 client behind them', () => {
    expect(clientIpKey('64:ff9b::203.0.113.7')).toBe('ip:203.0.113.7');
    expect(clientIpKey('64:ff9b::cb00:7107')).toBe('ip:203.0.113.7');
  });

  it('groups IPv6 by /64 by default, so one host cannot multiply its budget', () => {
    const key = clientIpKey('2001:db8:1:2::1');
    expect(key).toBe('ip:2001:db8:1:2::/64');
    expect(clientIpKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(clientIpKey('2001:DB8:1:2:aaaa:bbbb:cccc:dddd')).toBe(key);
    expect(clientIpKey('2001:db8:1:3::1')).not.toBe(key);
  });

  it('expands :: anywhere and drops zone ids', () => {
    expect(clientIpKey('::')).toBe('ip:::/64');
    expect(clientIpKey('::1', { ipv6PrefixLength: 128 })).toBe('ip:::1/128');
    expect(clientIpKey('1::', { ipv6PrefixLength: 128 })).toBe('ip:1::/128');
    expect(clientIpKey('1:2:3:4:5:6:7::', { ipv6PrefixLength: 128 })).toBe('ip:1:2:3:4:5:6:7:0/128');
    expect(clientIpKey('fe80::1%eth0')).toBe('ip:fe80::/64');
    expect(clientIpKey('fe80::1%eth0', { ipv6PrefixLength: 128 })).toBe('ip:fe80::1/128');
    expect(clientIpKey('2001:db8:0:0:1:0:0:1', { ipv6PrefixLength: 128 })).toBe('ip:2001:db8::1:0:0:1/128');
  });

  it('takes the prefix length it is given', () => {
    expect(clientIpKey('2001:db8:1:2::1', { ipv6PrefixLength: 48 })).toBe('ip:2001:db8:1::/48');
    expect(clientIpKey('2001:db8:1:2::1', { ipv6PrefixLength: 56 })).toBe(
      clientIpKey('2001:db8:1:ff::1', { ipv6PrefixLength: 56 }),
    );
    expect(clientIpKey('2001:db8:1:2::1', { ipv6PrefixLength: 60 })).toBe('ip:2001:db8:1::/60');
    expect(clientIpKey('2001:db8:1:12::1', { ipv6PrefixLength: 60 })).toBe('ip:2001:db8:1:10::/60');
    expect(() => clientIpKey('::1', { ipv6PrefixLength: 129 })).toThrow(RangeError);
  });

  it('yields one stable key for anything that is not an address, never throwing', () => {
    for (const bad of [
      '',
      'unknown',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.4:8080',
      '1.2.3.4%eth0',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8::',
      '12345::1',
      'g::1',
      '::1.2.3',
      '1.2.3.4::',
      'fe80::1%',
      'x'.repeat(1_000),
      undefined as unknown as string,
    ]) {
      expect(clientIpKey(bad), JSON.stringify(bad)).toBe(UNKNOWN_IP_KEY);
    }
  });
});
