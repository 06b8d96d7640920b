import { describe, expect, it } from 'vitest';
import { isTenantAuthError } from '../../vocabulary/errors.js';
import { getCommonPasswords } from './common-passwords.js';
import { createPasswordPolicy } from './policy.js';

const STRONG = 'Vt7#pLq2!mZr';
const codes = (errors: { code: string }[]) => errors.map((e) => e.code);

describe('getCommonPasswords', () => {
  it('ships at least 1,000 lower-cased entries, including long ones', () => {
    const list = getCommonPasswords();
    expect(list.size).toBeGreaterThanOrEqual(1000);
    for (const entry of list) {
      expect(entry).toBe(entry.toLowerCase());
      expect(entry).not.toMatch(/\s/);
    }
    expect(list.has('123456')).toBe(true);
    expect(list.has('password1234')).toBe(true);
    expect(list.has('qwertyuiop123')).toBe(true);
    expect([...list].filter((e) => e.length >= 12).length).toBeGreaterThanOrEqual(100);
  });

  it('is built once and cached', () => {
    expect(getCommonPasswords()).toBe(getCommonPasswords());
  });
});

describe('createPasswordPolicy defaults', () => {
  const policy = createPasswordPolicy();

  it('accepts a strong password', () => {
    expect(
      policy.check(STRONG, { email: 'ada@example.com', tenantName: 'Acme', tenantSlug: 'acme' }),
    ).toEqual([]);
  });

  it('reports every error with the password field and a message', () => {
    for (const error of policy.check('a')) {
      expect(error.field).toBe('password');
      expect(error.message.length).toBeGreaterThan(0);
    }
  });

  it('requires 12 characters', () => {
    expect(codes(policy.check('Vt7#pLq2!mZ'))).toEqual(['too_short']);
    expect(policy.check('Vt7#pLq2!mZr')).toEqual([]);
  });

  it('allows at most 128 characters', () => {
    const ok = `Aa1!${'x'.repeat(124)}`;
    expect(policy.check(ok)).toEqual([]);
    expect(codes(policy.check(`${ok}y`))).toEqual(['too_long']);
  });

  it('counts code points, not UTF-16 units', () => {
    // 11 emoji are 22 UTF-16 units but only 11 characters.
    const emoji11 = 'Aa1😀😀😀😀😀😀😀😀';
    expect(emoji11.length).toBe(19);
    expect(codes(policy.check(emoji11))).toEqual(['too_short']);
    // 128 characters made of 125 emoji (253 UTF-16 units) are not too long.
    const emoji128 = `Aa1${'😀'.repeat(125)}`;
    expect(policy.check(emoji128)).toEqual([]);
    expect(codes(policy.check(`${emoji128}😀`))).toEqual(['too_long']);
  });

  it('requires three of lower, upper, digits and symbols', () => {
    expect(codes(policy.check('vt7pplq2mmzr'))).toEqual(['missing_character_classes']);
    expect(codes(policy.check('VTXPPLQQMMZR'))).toEqual(['missing_character_classes']);
    expect(codes(policy.check('vt#pplq!mmzr'))).toEqual(['missing_character_classes']);
    expect(policy.check('vt7pplq2mmz!')).toEqual([]); // lower + digit + symbol
    expect(policy.check('Vt7pPlq2mmzR')).toEqual([]); // lower + upper + digit
    expect(policy.check('Vt#pPlq!mmzR')).toEqual([]); // lower + upper + symbol
    expect(policy.check('VT7#PLQ2!MZR')).toEqual([]); // upper + digit + symbol
  });

  it('counts non-ASCII letters, digits and symbols in their classes', () => {
    expect(policy.check('ÉÀÜéàü٣٤ßøæö')).toEqual([]); // upper + lower + Arabic-Indic digits
    expect(policy.check('éàüßøæ ¿¡ÉÀÜ')).toEqual([]); // lower + symbols (space, ¿, ¡) + upper
  });

  describe('personal information', () => {
    const context = {
      email: 'ada.lovelace@example.com',
      tenantName: 'Analytical Engines',
      tenantSlug: 'babbage-co',
    };

    it.each([
      ['the whole local part', 'Xx1!ada.lovelaceQ'],
      ['a part of the local part', 'Xx1!LoveLaceQq'],
      ['another part of the local part', 'Xx1!Q.ADA.q9rt'],
      ['the domain label', 'My!Example99z'],
      ['the tenant name', 'Xx1!analytical enginesQ'],
      ['a word of the tenant name', 'Engines#2024xy'],
      ['the tenant slug', 'Q9!zBabbage-Co'],
      ['a word of the tenant slug', 'Q9!zbabbAGEzz'],
    ])('rejects %s, case-insensitively', (_name, password) => {
      expect(codes(policy.check(password, context))).toEqual(['contains_personal_info']);
    });

    it('ignores parts shorter than 3 characters and the top-level domain', () => {
      // "co" (slug part) and "com" (top-level domain) are not personal.
      expect(policy.check('Co!Com9zzQ#xr', context)).toEqual([]);
    });

    it('checks 3-character parts', () => {
      expect(codes(policy.check('Qz9!aDaQz9!w', { email: 'ada@example.com' }))).toEqual([
        'contains_personal_info',
      ]);
    });

    it('uses the organisation label of a domain under a public suffix', () => {
      expect(codes(policy.check('Qz9!AcmeQz9!', { email: 'jo@mail.acme.co.uk' }))).toEqual([
        'contains_personal_info',
      ]);
      expect(codes(policy.check('Qz9!mailQz9!', { email: 'jo@mail.acme.co.uk' }))).toEqual([
        'contains_personal_info',
      ]);
    });

    it('does not treat generic words of a tenant name as personal', () => {
      expect(policy.check('Weather9!Qzxy', { tenantName: 'The Acme Company' })).toEqual([]);
      expect(codes(policy.check('Company9!Qzxy', { tenantName: 'The Acme Company' }))).toEqual([
        'contains_personal_info',
      ]);
    });

    it('folds compatibility characters (full-width letters)', () => {
      expect(codes(policy.check('Ｅｘａｍｐｌｅ9!Qzxy', { email: 'ada@example.com' }))).toEqual([
        'contains_personal_info',
      ]);
    });

    it('is fine without any context', () => {
      expect(policy.check(STRONG)).toEqual([]);
      expect(policy.check(STRONG, {})).toEqual([]);
    });
  });

  describe('common passwords', () => {
    it.each([
      ['a long list entry', 'password1234'],
      ['a list entry in another case', 'QwertyUiop123'],
      ['an entry padded with digits', 'Password123456789'],
      ['an entry padded with digits and symbols', 'Sunshine2024!!'],
      ['an entry with leading and trailing padding', '!!Dragon!!2024'],
      ['digits only', '123456789012345'],
    ])('rejects %s', (_name, password) => {
      expect(codes(policy.check(password))).toContain('common_password');
    });

    it('does not flag a password that merely contains a common word in the middle', () => {
      expect(policy.check('Xq!dragonfly7Zz')).toEqual([]);
    });

    it('answers only too_long for a huge password', () => {
      const huge = `Password${'1'.repeat(1_000_000)}`;
      expect(codes(policy.check(huge))).toEqual(['too_long']);
    });
  });

  it('reports all failures at once', () => {
    expect(codes(policy.check('ada', { email: 'ada@example.com' }))).toEqual([
      'too_short',
      'missing_character_classes',
      'contains_personal_info',
    ]);
    expect(codes(policy.check('password'))).toEqual([
      'too_short',
      'missing_character_classes',
      'common_password',
    ]);
  });

  it('treats a non-string as missing', () => {
    expect(codes(policy.check(undefined as unknown as string))).toEqual(['required']);
  });
});

describe('createPasswordPolicy options', () => {
  it('configures the lengths', () => {
    const policy = createPasswordPolicy({ minLength: 8, maxLength: 10 });
    expect(policy.check('Vt7#pLq2')).toEqual([]);
    expect(codes(policy.check('Vt7#pLq'))).toEqual(['too_short']);
    expect(codes(policy.check('Vt7#pLq2!mZ'))).toEqual(['too_long']);
  });

  it('configures the character classes', () => {
    expect(createPasswordPolicy({ minCharacterClasses: 1 }).check('vtxpplqqmmzr')).toEqual([]);
    expect(codes(createPasswordPolicy({ minCharacterClasses: 4 }).check('Vt7pPlq2mmzR'))).toEqual([
      'missing_character_classes',
    ]);
    expect(createPasswordPolicy({ minCharacterClasses: 4 }).check(STRONG)).toEqual([]);
  });

  it('can allow personal information', () => {
    const context = { email: 'ada@example.com' };
    expect(createPasswordPolicy({ forbidPersonalInfo: false }).check('Example!Qz9x', context)).toEqual([]);
  });

  it('configures the shortest personal part', () => {
    const context = { email: 'ada@example.com' };
    expect(createPasswordPolicy({ personalInfoMinPartLength: 4 }).check('Qz9!aDaQz9!w', context)).toEqual([]);
  });

  it('can disable the common-password check', () => {
    expect(createPasswordPolicy({ commonPasswords: false }).check('Password1234')).toEqual([]);
  });

  it('takes its own list, compared case-insensitively whatever case it is written in', () => {
    const policy = createPasswordPolicy({ commonPasswords: new Set(['CorrectHorse']) });
    expect(codes(policy.check('correcthorse!42'))).toEqual(['common_password']);
    expect(policy.check('Password1234')).toEqual([]);
  });

  it.each([
    { minLength: -1 },
    { minLength: 1.5 },
    { maxLength: 0 },
    { minLength: 20, maxLength: 10 },
    { minCharacterClasses: 5 },
    { minCharacterClasses: -1 },
    { personalInfoMinPartLength: 0 },
    { minLength: Number.NaN },
  ])('rejects the invalid options %j at creation', (options) => {
    expect(() => createPasswordPolicy(options)).toThrow(
      expect.objectContaining({ name: 'TenantAuthError', code: 'invalid_configuration' }),
    );
    try {
      createPasswordPolicy(options);
    } catch (err) {
      expect(isTenantAuthError(err, 'invalid_configuration')).toBe(true);
    }
  });
});

describe('oversized input', () => {
  it('answers only too_long, without running the other rules', () => {
    const policy = createPasswordPolicy();
    // A long run of non-letters that NFKC-folds to a longer one, then a letter: this used to send the
    // common-password check into quadratic regex backtracking.
    const errors = policy.check(`${'¼'.repeat(8150)}a`, { email: 'dos@example.com' });
    expect(errors).toEqual([expect.objectContaining({ field: 'password', code: 'too_long' })]);
  });

  it('still strips padding of any length within the limit', () => {
    const policy = createPasswordPolicy({ maxLength: 1024, minCharacterClasses: 0 });
    const codes = policy.check(`${'!1'.repeat(400)}dragon${'9#'.repeat(100)}`).map((e) => e.code);
    expect(codes).toContain('common_password');
  });
});
