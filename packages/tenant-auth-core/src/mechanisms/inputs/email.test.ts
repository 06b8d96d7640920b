import { describe, expect, it } from 'vitest';
import { EMAIL_LOCAL_PART_MAX_LENGTH, EMAIL_MAX_LENGTH, normalizeEmail, parseEmail } from './email.js';

function domainOfLength(n: number): string {
  // Labels of at most 63 characters joined by dots, ending in ".com".
  let rest = n - '.com'.length;
  const labels: string[] = [];
  while (rest > 0) {
    const len = Math.min(63, rest);
    labels.push('d'.repeat(len));
    rest -= len + 1;
  }
  let domain = `${labels.join('.')}.com`;
  while (domain.length < n) domain = `d${domain}`;
  return domain.slice(domain.length - n);
}

describe('normalizeEmail', () => {
  it('trims and lower-cases', () => {
    expect(normalizeEmail('  Ada@Example.COM \n')).toBe('ada@example.com');
  });
});

describe('parseEmail', () => {
  it('accepts a valid address and splits it', () => {
    expect(parseEmail('ada@example.com')).toEqual({
      ok: true,
      email: 'ada@example.com',
      localPart: 'ada',
      domain: 'example.com',
    });
  });

  it('normalises by trimming and lower-casing', () => {
    const parsed = parseEmail('  Ada.Lovelace+Test@Example.CO.UK\t');
    expect(parsed).toEqual({
      ok: true,
      email: 'ada.lovelace+test@example.co.uk',
      localPart: 'ada.lovelace+test',
      domain: 'example.co.uk',
    });
  });

  it.each([undefined, null, '', '   '])('reports %j as required', (input) => {
    const parsed = parseEmail(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatchObject({ field: 'email', code: 'required' });
  });

  it.each([42, {}, ['ada@example.com'], true])('rejects the non-string %j as invalid_type', (input) => {
    const parsed = parseEmail(input);
    expect(parsed).toMatchObject({ ok: false, error: { field: 'email', code: 'invalid_type' } });
  });

  it.each([
    'ada',
    'ada@',
    '@example.com',
    'ada@example',
    'ada@@example.com',
    'ada example@example.com',
    'ada..lovelace@example.com',
    '.ada@example.com',
    'ada@-example.com',
    'ada@exa_mple.com',
    'adä@example.com',
    '"ada"@example.com',
  ])('rejects %j as invalid_email', (input) => {
    const parsed = parseEmail(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.field).toBe('email');
      expect(parsed.error.code).toBe('invalid_email');
      expect(parsed.error.message).not.toBe('');
    }
  });

  it('accepts exactly 254 characters in total and a 64-character local part', () => {
    const local = 'a'.repeat(EMAIL_LOCAL_PART_MAX_LENGTH);
    const email = `${local}@${domainOfLength(EMAIL_MAX_LENGTH - local.length - 1)}`;
    expect(email.length).toBe(254);
    const parsed = parseEmail(email);
    expect(parsed.ok).toBe(true);
  });

  it('rejects 255 characters in total', () => {
    const email = `ada@${domainOfLength(EMAIL_MAX_LENGTH + 1 - 4)}`;
    expect(email.length).toBe(255);
    // The same shape one character shorter is fine, so the cap is what rejects it.
    expect(parseEmail(email.slice(0, 4) + email.slice(5)).ok).toBe(true);
    expect(parseEmail(email)).toMatchObject({ ok: false, error: { code: 'invalid_email' } });
  });

  it('rejects a 65-character local part', () => {
    expect(parseEmail(`${'a'.repeat(64)}@example.com`).ok).toBe(true);
    expect(parseEmail(`${'a'.repeat(65)}@example.com`)).toMatchObject({
      ok: false,
      error: { code: 'invalid_email', message: expect.stringContaining('64') },
    });
  });

  it('measures the trimmed input, so surrounding whitespace does not count', () => {
    const email = `${'a'.repeat(64)}@example.com`;
    expect(parseEmail(`${' '.repeat(300)}${email}${' '.repeat(300)}`)).toMatchObject({ ok: true, email });
  });

  it('checks the caps before parsing (a huge input is rejected by the cap, not the parser)', () => {
    const parsed = parseEmail(`${'a'.repeat(1_000_000)}@example.com`);
    expect(parsed).toMatchObject({
      ok: false,
      error: { code: 'invalid_email', message: expect.stringContaining('254') },
    });
  });

  it('counts bytes, so a multi-byte local part cannot slip under the cap', () => {
    // 40 characters but 80 UTF-8 bytes: over the 64-byte local-part cap.
    expect(parseEmail(`${'é'.repeat(40)}@example.com`)).toMatchObject({
      ok: false,
      error: { code: 'invalid_email', message: expect.stringContaining('64') },
    });
  });

  it('rejects a domain label longer than 63 characters', () => {
    expect(parseEmail(`ada@${'d'.repeat(63)}.com`).ok).toBe(true);
    expect(parseEmail(`ada@${'d'.repeat(64)}.com`)).toMatchObject({
      ok: false,
      error: { code: 'invalid_email' },
    });
  });
});
