/** Printable ASCII: the only addresses that can name an account (registration accepts no other). */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * @internal The domain part of a normalised address (`null` when there is none, or when the address is
 * not printable ASCII: no Unicode folding ever turns a look-alike into a verified domain).
 */
export function domainOf(email: string): string | null {
  const at = email.lastIndexOf('@');
  return at < 1 || !PRINTABLE_ASCII.test(email) ? null : email.slice(at + 1);
}
