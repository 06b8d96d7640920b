import type { SsoSettings } from '../../ports/sso-ports.js';
import type { FieldError } from '../../vocabulary/errors.js';

/**
 * @internal What a connection trusts its provider with beyond the protocol's checks (`docs/http-api.md`,
 * "Rules that change in 1.3"), whatever the protocol. Both are `false` unless an owner sent `true`, and
 * both are kept in the connection's `settings` (no column of their own).
 */
export interface ConnectionTrust {
  /** Provision and link addresses the provider does not say are verified (Entra ID never says). */
  trustUnverifiedEmail: boolean;
  /** Let the provider's `mfa` in `amr` stand in for the user's own factor on *recent* routes. */
  trustProviderMfa: boolean;
}

/** @internal The fields of `PUT /tenants/me/sso` that {@link ConnectionTrust} reads. */
export const TRUST_FIELDS = ['trustUnverifiedEmail', 'trustProviderMfa'] as const;

/** @internal The trust an owner sent (a field not sent is `false`), or its field errors. */
export function checkedTrust(
  input: Readonly<Record<string, unknown>>,
  errors: FieldError[],
): ConnectionTrust {
  const trust = { trustUnverifiedEmail: false, trustProviderMfa: false };
  for (const field of TRUST_FIELDS) {
    const value = input[field] ?? false;
    if (typeof value === 'boolean') trust[field] = value;
    else errors.push({ field, code: 'invalid_type', message: `${field} must be a boolean.` });
  }
  return trust;
}

/** @internal A stored connection's trust: only the boolean `true` trusts (anything else, older rows included, does not). */
export const trustOf = (settings: SsoSettings): ConnectionTrust => ({
  trustUnverifiedEmail: settings.trustUnverifiedEmail === true,
  trustProviderMfa: settings.trustProviderMfa === true,
});
