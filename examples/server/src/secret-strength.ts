/**
 * Why a secret is too weak to sign tokens with, or `null`. The bar is 128 bits of estimated entropy:
 * length times the Shannon entropy of its characters, so a repeated character (`aaaa…`, 32 spaces) or a
 * short word repeated (`changemechangeme…`) falls far below it, while 32 random bytes written in hex
 * (~256 bits) or base64url (~220 bits) pass. Known placeholders are refused whatever their length.
 *
 * @example
 * secretStrengthProblem('a'.repeat(32)); // 'is too predictable (about 0 bits of entropy; at least 128 are needed)'
 */
export function secretStrengthProblem(secret: string): string | null {
  const lower = secret.toLowerCase();
  if (PLACEHOLDERS.some((word) => lower.includes(word))) return 'looks like a placeholder, not a secret';
  const bits = estimatedBits(secret);
  if (bits < MIN_BITS) {
    return `is too predictable (about ${Math.floor(bits)} bits of entropy; at least ${MIN_BITS} are needed)`;
  }
  return null;
}

const MIN_BITS = 128;

/** Words that mean "replace me". */
const PLACEHOLDERS = [
  'changeme',
  'change-me',
  'change_me',
  'replace',
  'secret',
  'password',
  'example',
  'todo',
  'xxxx',
];

function estimatedBits(text: string): number {
  const counts = new Map<string, number>();
  const chars = [...text];
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) {
    const p = n / chars.length;
    perChar -= p * Math.log2(p);
  }
  return perChar * chars.length;
}
