import { incorrectPassword, validationError } from '../errors.js';
import { clientKeys, hashingOwner } from '../rate-limit/client-ip-key.js';
import type { RequestContext, User } from '../records.js';
import type { Services } from '../services.js';
import { ILL_FORMED } from './inputs.js';

/** @internal A required string field of at most `max` characters, or a `validation_failed`. */
export function requiredText(value: unknown, field: string, max = 1024): string {
  if (value === undefined || value === null || value === '') {
    throw validationError([{ field, code: 'required', message: `${field} is required.` }]);
  }
  if (typeof value !== 'string') {
    throw validationError([{ field, code: 'invalid_type', message: `${field} must be a string.` }]);
  }
  if (ILL_FORMED.test(value)) {
    throw validationError([{ field, code: 'invalid_value', message: `${field} must be valid text.` }]);
  }
  if (value.length > max) {
    throw validationError([
      { field, code: 'too_long', message: `${field} must be at most ${max} characters long.` },
    ]);
  }
  return value;
}

/**
 * @internal Re-authentication: checks the caller's current password before a sensitive change. A wrong
 * one counts towards the account's login throttle, exactly like a failed login (so a stolen access
 * token cannot be used to guess the password faster than the login form could); a right one gives its
 * attempt back.
 */
export function createPasswordConfirmation(services: Pick<Services, 'hasher' | 'limits'>) {
  const { hasher, limits } = services;
  return async function confirmPassword(
    user: User,
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
