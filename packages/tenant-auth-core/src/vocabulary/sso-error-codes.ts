/**
 * Why an SSO callback failed, as the browser is told (`APP_URL/sso-error?code=<code>`): the one list.
 *
 * @example
 * if ((SSO_ERROR_CODES as readonly string[]).includes(code)) showMessage(code);
 */
export const SSO_ERROR_CODES = [
  'invalid_state',
  'idp_error',
  'invalid_id_token',
  'domain_mismatch',
  'email_taken',
  'identity_mismatch',
  'email_not_verified',
  'link_required',
  'invalid_response',
  'account_disabled',
] as const;

/**
 * One of {@link SSO_ERROR_CODES}.
 *
 * @example
 * const code: SsoErrorCode = 'domain_mismatch';
 */
export type SsoErrorCode = (typeof SSO_ERROR_CODES)[number];
