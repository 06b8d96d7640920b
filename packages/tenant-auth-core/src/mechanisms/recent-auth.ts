import type { CompleteTransactionStores } from '../ports/tenant-auth-stores.js';
import type { AccessClaims } from '../vocabulary/claims.js';
import type { Clock } from '../vocabulary/clock.js';
import { configurationError, errorOf } from '../vocabulary/errors.js';
import type { UserRecord } from '../vocabulary/records.js';
import { actingUser } from './authorization.js';
import { factorMethods } from './second-factor/second-factor-gate.js';
import { trustOf } from './sso/connection-trust.js';

/** @internal The one answer when an operation needs a fresher or stronger authentication. */
export const reauthenticationRequired = () => errorOf('reauthentication_required');

/**
 * @internal Recent authentication (docs/http-api.md, "Recent authentication"): the check of every
 * operation marked recent, whatever its use case (MFA, passkeys, SSO, API keys). Built once, in the
 * services; `reauthenticate` (the MFA use case) is the way to pass it again.
 */
export function createRecentAuth(deps: {
  stores: Pick<CompleteTransactionStores, 'users' | 'sessions' | 'factors' | 'passkeys' | 'sso'>;
  clock: Clock;
  reauthMaxAgeSeconds: number;
}) {
  const { stores, clock, reauthMaxAgeSeconds } = deps;
  /**
   * The caller, when its session is active, its `authTime` at most `maxAgeSeconds` old and, when it has
   * a factor, its `amr` has `mfa`; otherwise `reauthentication_required` (`invalid_token` for a session
   * no longer active). The factor state is read now, not taken from the token.
   */
  return async function requireRecent(
    claims: AccessClaims,
    maxAgeSeconds = reauthMaxAgeSeconds,
  ): Promise<UserRecord> {
    if (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 0)
      throw configurationError('requireRecentAuth', 'maxAgeSeconds', 'must be a non-negative integer');
    const now = clock.now();
    const user = await actingUser(stores, claims, now);
    if (now.getTime() - claims.authTime.getTime() > maxAgeSeconds * 1000) throw reauthenticationRequired();
    const methods = await factorMethods(stores, user);
    if (methods.length > 0 && !claims.amr.includes('mfa')) throw reauthenticationRequired();
    // An SSO session's `mfa` is the provider's word: it stands in for the user's own factor only where
    // the tenant's connection trusts its provider with that.
    if (methods.length > 0 && claims.amr.includes('sso')) {
      const connection = await stores.sso.findConnection(user.tenantId);
      if (!connection || !trustOf(connection.settings).trustProviderMfa) throw reauthenticationRequired();
    }
    return user;
  };
}

/** @internal */
export type RequireRecent = ReturnType<typeof createRecentAuth>;
