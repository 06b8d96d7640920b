import { describe, expect, it } from 'vitest';
import { cleanText, describeUserAgent } from './device-info.js';

describe('device info', () => {
  it('summarises common user agents', () => {
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      ),
    ).toBe('Chrome on macOS');
    expect(describeUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe(
      'Firefox on Linux',
    );
    expect(
      describeUserAgent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari on iOS');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36 Edg/126.0',
      ),
    ).toBe('Edge on Windows');
    expect(describeUserAgent('curl/8.5.0')).toBe('curl');
    expect(describeUserAgent(undefined)).toBe('Unknown device');
    expect(describeUserAgent('SomeBot/1.0')).toBe('SomeBot/1.0');
  });

  it('strips control characters and caps free text', () => {
    expect(cleanText('  evil\u0000\nname\u007f ', 200)).toBe('evilname');
    expect(cleanText('x'.repeat(300), 200)).toHaveLength(200);
    expect(cleanText('😀'.repeat(300), 200)).toBe('😀'.repeat(200));
    expect(cleanText('   ', 200)).toBeNull();
  });
});
