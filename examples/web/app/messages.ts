// Every error the contract can return, as a sentence for people: the one place the application words
// them. No DOM here: the root typecheck (tsc -p tsconfig.json) reads this file through the tests, so a
// code added to the contract fails CI until it has a message.
import type { AuditEventType, FieldErrorCode, ProblemCode, Role } from 'tenant-auth-client';

/** What the user reads for each problem code of the contract (tenant-auth-client's `ProblemCode`). */
export const PROBLEM_MESSAGES = {
  validation_failed: 'Some of the information is not valid. Please check the highlighted fields.',
  invalid_json: 'The request could not be read. Please reload the page and try again.',
  invalid_credentials: 'That email and password do not match an account.',
  invalid_token: 'Your session has ended. Please sign in again.',
  csrf_rejected: 'This page is not allowed to make that request. Open the application from its own address.',
  forbidden: 'Your role does not allow this. Ask an owner or administrator of your organisation.',
  email_not_verified: 'Verify your email address first: open the link we sent you, then try again.',
  not_found: 'That no longer exists. It may have been removed already.',
  last_owner: 'Your organisation needs at least one owner. Make someone else an owner first.',
  mfa_required: 'Enter the code from your authenticator app.',
  mfa_setup_required: 'Your organisation requires two-step verification. Set it up to continue.',
  reauthentication_required:
    'This needs you to confirm it is you. Try again, and enter your password when asked.',
  mfa_required_by_tenant: 'Your organisation requires two-step verification: it cannot be turned off.',
  already_enabled: 'Two-step verification is already on.',
  mfa_not_enabled: 'Turn on two-step verification for your own account first.',
  method_not_allowed: 'The server does not support this action. The application may be out of date.',
  payload_too_large: 'What you entered is too long to send.',
  unsupported_media_type: 'The request was sent in a format the server does not accept.',
  rate_limited: 'Too many attempts. Please wait a moment and try again.',
  internal_error: 'Something went wrong on our side. Please try again.',
  unavailable: 'The server cannot be reached right now. Check your connection and try again.',
  feature_unavailable: 'This server does not offer this feature.',
  http_error: 'The server gave an unexpected answer. Please try again.',
  sso_required: 'Your organisation signs you in with single sign-on. Use "Sign in with SSO".',
  domain_taken: 'Another organisation has already verified this domain.',
  domain_not_verified: 'The DNS record is not there yet. Add it, wait a few minutes, then verify again.',
  account_disabled: 'This account has been deactivated. Ask an administrator of your organisation.',
} as const satisfies Record<ProblemCode, string>;

/** What the user reads next to a field, for each field error code. */
export const FIELD_MESSAGES = {
  invalid_email: 'Enter a valid email address.',
  email_taken: 'An account with this email address already exists.',
  too_short: 'This is too short.',
  too_long: 'This is too long.',
  missing_character_classes: 'Use a mix of upper-case and lower-case letters, digits and symbols.',
  contains_personal_info: 'Do not use your email address or organisation name in your password.',
  common_password: 'This password is too common. Choose one that is harder to guess.',
  required: 'This field is required.',
  invalid_type: 'This value is not valid.',
  invalid_value: 'This value is not valid.',
  invalid_or_expired: 'This link is invalid or has expired. Ask for a new one.',
  incorrect: 'This password is not correct.',
  invalid_role: 'Choose one of the roles offered.',
  invalid_credential: 'The passkey could not be used. Try again.',
  invalid_domain: 'Enter a domain you own, such as example.com (not a public suffix).',
  issuer_unreachable: "The identity provider's discovery document could not be fetched.",
  invalid_metadata: 'This is not usable SAML metadata of an identity provider.',
  invalid_certificate: 'Use a valid, unexpired X.509 certificate with an RSA key of at least 2048 bits.',
  invalid_url: 'Enter an https URL.',
  invalid_event: 'Choose audit event types, or all of them.',
  domain_not_verified: "The address is not in one of your organisation's verified domains.",
  unknown_user: 'Every member must be a user of your organisation.',
} as const satisfies Record<FieldErrorCode, string>;

/**
 * Compile-time proof that both tables are complete AND have no stale entry: `satisfies` above fails on a
 * missing code, these fail on a code removed from the contract.
 */
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const problemCodesCovered: Exact<keyof typeof PROBLEM_MESSAGES, ProblemCode> = true;
const fieldCodesCovered: Exact<keyof typeof FIELD_MESSAGES, FieldErrorCode> = true;
void problemCodesCovered;
void fieldCodesCovered;

/** A label for each audit event type. */
export const AUDIT_EVENT_LABELS = {
  registered: 'Account created',
  login_succeeded: 'Signed in',
  login_failed: 'Failed sign-in',
  refreshed: 'Session refreshed',
  refresh_reissued: 'Session refreshed (concurrent request)',
  replay_detected: 'Stolen session detected and ended',
  logout: 'Signed out',
  session_revoked: 'Session ended',
  sessions_revoked: 'Sessions ended',
  password_reset_requested: 'Password reset requested',
  password_reset: 'Password reset',
  password_changed: 'Password changed',
  email_verified: 'Email verified',
  email_changed: 'Email changed',
  invitation_created: 'Invitation sent',
  invitation_revoked: 'Invitation revoked',
  invitation_accepted: 'Invitation accepted',
  member_role_changed: 'Role changed',
  member_removed: 'Member removed',
  account_deleted: 'Account deleted',
  mfa_enabled: 'Two-step verification turned on',
  mfa_disabled: 'Two-step verification turned off',
  mfa_challenge_failed: 'Wrong verification code',
  recovery_code_used: 'Recovery code used',
  recovery_codes_regenerated: 'New recovery codes',
  reauthenticated: 'Identity confirmed',
  security_policy_changed: 'Security policy changed',
  passkey_added: 'Passkey added',
  passkey_removed: 'Passkey removed',
  passkey_counter_regressed: 'Passkey refused (possible clone)',
  domain_added: 'Domain added',
  domain_verified: 'Domain verified',
  domain_removed: 'Domain removed',
  sso_configured: 'Single sign-on configured',
  sso_removed: 'Single sign-on removed',
  sso_login: 'Signed in with SSO',
  sso_user_provisioned: 'Account created by SSO',
  sso_identity_linked: 'SSO identity linked',
  api_key_created: 'API key created',
  api_key_revoked: 'API key revoked',
  user_deactivated: 'Account deactivated',
  user_reactivated: 'Account reactivated',
  webhook_created: 'Webhook created',
  webhook_updated: 'Webhook changed',
  webhook_deleted: 'Webhook deleted',
  webhook_disabled: 'Webhook disabled after failed deliveries',
  scim_user_created: 'User provisioned by the directory',
  scim_user_updated: 'User changed by the directory',
  scim_user_deleted: 'User removed by the directory',
  scim_group_changed: 'Group changed by the directory',
  scim_token_created: 'SCIM token created',
  scim_token_revoked: 'SCIM token revoked',
} as const satisfies Record<AuditEventType, string>;

/** A label for each role. */
export const ROLE_LABELS = {
  owner: 'Owner',
  admin: 'Administrator',
  member: 'Member',
} as const satisfies Record<Role, string>;

/** The shape of an error this module can describe: a `TenantAuthClientError`, duck-typed. */
export interface DescribableError {
  code: ProblemCode;
  errors: readonly { field: string; code: FieldErrorCode }[];
  retryAfterSeconds?: number | undefined;
}

/** The sentence for a problem, with the wait of a `rate_limited` when the server said it. */
export function problemMessage(error: DescribableError): string {
  const base: string = PROBLEM_MESSAGES[error.code] ?? PROBLEM_MESSAGES.http_error;
  if (error.code === 'rate_limited' && error.retryAfterSeconds !== undefined) {
    const s = error.retryAfterSeconds;
    return `Too many attempts. Please try again in ${s} second${s === 1 ? '' : 's'}.`;
  }
  if (error.code === 'unavailable' && error.retryAfterSeconds !== undefined) {
    return 'The service is busy or under maintenance. Please try again shortly.';
  }
  return base;
}

/** The sentence for one field error; `field` refines a few (a token field is a link, not an input). */
export function fieldMessage(field: string, code: FieldErrorCode): string {
  if (code === 'too_short' && /password/i.test(field)) return 'Use at least 12 characters.';
  if (code === 'incorrect' && field === 'code') return 'This code is not correct. Check it and try again.';
  if (code === 'email_taken' && field === 'newEmail') return 'Another account already uses this address.';
  if (code === 'email_taken' && field === 'token') return 'Another account now uses this email address.';
  if (code === 'email_taken' && field === 'email') return FIELD_MESSAGES.email_taken;
  return FIELD_MESSAGES[code] ?? FIELD_MESSAGES.invalid_value;
}
