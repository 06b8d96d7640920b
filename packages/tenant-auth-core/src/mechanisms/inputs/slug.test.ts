import { describe, expect, it } from 'vitest';
import { initialSlug, isValidSlug, slugify, withSlugSuffix } from './slug.js';

const fixedRandom = (size: number) => new Uint8Array(size).map((_, i) => i * 7);

describe('slugs', () => {
  it('fold accents and turn runs of anything else into single hyphens', () => {
    expect(slugify('Ärzte & Söhne GmbH')).toBe('arzte-sohne-gmbh');
    expect(slugify('  --Acme__Corp--  ')).toBe('acme-corp');
    expect(slugify('日本')).toBe('');
  });

  it('are 3 to 63 characters of [a-z0-9-], never starting or ending with a hyphen', () => {
    for (const name of ['a', 'ab', '', '日本', 'x'.repeat(100), `${'ab-'.repeat(30)}cd`, 'Hello World']) {
      const slug = initialSlug(name, fixedRandom);
      expect(isValidSlug(slug), `${name} -> ${slug}`).toBe(true);
      expect(isValidSlug(withSlugSuffix(slugify(name), fixedRandom)), name).toBe(true);
    }
    expect(initialSlug('Hello World', fixedRandom)).toBe('hello-world');
  });

  it('reject invalid slugs', () => {
    for (const bad of ['ab', '-abc', 'abc-', 'a--b', 'ABC', 'a_b', 'x'.repeat(64)])
      expect(isValidSlug(bad), bad).toBe(false);
  });

  it('get a random suffix on collision', () => {
    const a = withSlugSuffix('acme', () => new Uint8Array([1, 2, 3, 4, 5, 6]));
    const b = withSlugSuffix('acme', () => new Uint8Array([6, 5, 4, 3, 2, 1]));
    expect(a).toMatch(/^acme-[a-z0-9]{6}$/);
    expect(a).not.toBe(b);
  });
});
