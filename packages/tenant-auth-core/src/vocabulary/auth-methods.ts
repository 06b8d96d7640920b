/**
 * How a session was authenticated (RFC 8176 where it has a word): the one list of them. `pwd` a
 * password, `otp` a TOTP or recovery code, `hwk` a passkey, `sso` single sign-on, and `mfa` when two
 * factors were used.
 *
 * @example
 * const strong = claims.amr.includes('mfa') || claims.amr.includes('sso');
 */
export const AUTH_METHODS = ['pwd', 'otp', 'hwk', 'sso', 'mfa'] as const;

/**
 * One of {@link AUTH_METHODS}.
 *
 * @example
 * const amr: AuthMethod[] = ['pwd', 'otp', 'mfa'];
 */
export type AuthMethod = (typeof AUTH_METHODS)[number];
