import type { RandomBytes } from '../../vocabulary/clock.js';

export const SLUG_MIN_LENGTH = 3;
export const SLUG_MAX_LENGTH = 63;
const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SUFFIX_LENGTH = 6;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Whether `slug` is valid: lower-case ASCII letters, digits and single hyphens, 3 to 63 characters,
 * not starting or ending with a hyphen.
 *
 * @example isValidSlug('acme-corp'); // true
 */
export function isValidSlug(slug: string): boolean {
  return slug.length >= SLUG_MIN_LENGTH && slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug);
}

/**
 * The slug a name turns into, before any collision suffix: accents folded, everything else that is not
 * a letter or digit becomes a single hyphen. May be shorter than 3 characters (even empty); see
 * `withSlugSuffix`.
 *
 * @example slugify('Ärzte & Söhne GmbH'); // 'arzte-sohne-gmbh'
 */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
}

/**
 * `base` with a short random suffix, cut so the result is a valid slug of at most 63 characters.
 *
 * @example withSlugSuffix('acme', systemRandom); // 'acme-k3x9q2'
 */
export function withSlugSuffix(base: string, random: RandomBytes): string {
  const bytes = random(SUFFIX_LENGTH);
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += ALPHABET[(bytes[i] ?? 0) % ALPHABET.length];
  const head = base.slice(0, SLUG_MAX_LENGTH - SUFFIX_LENGTH - 1).replace(/-+$/, '');
  return head ? `${head}-${suffix}` : `tenant-${suffix}`;
}

/**
 * The first slug to try for a name: the slugified name, or, when that is too short, one with a suffix.
 *
 * @example initialSlug('Acme', systemRandom); // 'acme'
 */
export function initialSlug(name: string, random: RandomBytes): string {
  const base = slugify(name);
  return base.length >= SLUG_MIN_LENGTH ? base : withSlugSuffix(base, random);
}
