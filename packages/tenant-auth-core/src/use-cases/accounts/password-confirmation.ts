import { clientKeys, hashingOwner } from '../../mechanisms/rate-limit/client-ip-key.js';
import type { Services } from '../../mechanisms/services.js';
import { incorrectPassword } from '../../vocabulary/errors.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';

/**
 * @internal Re-authentication: checks the caller's current password before a sensitive change. A wrong
 * one counts towards the account's login throttle, exactly like a failed login (so a stolen access
 * token cannot be used to guess the password faster than the login form could); a right one gives its
 * attempt back.
 */
export function createPasswordConfirmation(services: Pick<Services, 'hasher' | 'limits'>) {
  const { hasher, limits } = services;
  return async function confirmPassword(
    user: UserRecord,
    password: string,
    field: string,
    context: RequestContext,
  ): Promise<void> {
    const reservation = await limits?.loginThrottle.attempt(
      user.email,
      clientKeys(context.ipAddress ?? '').ladder,
    );
    const ok = await hasher.verify(password, user.passwordHash, hashingOwner(context.ipAddress));
    if (!ok) throw incorrectPassword(field);
    await reservation?.release();
  };
}

/** @internal */
export type ConfirmPassword = ReturnType<typeof createPasswordConfirmation>;
