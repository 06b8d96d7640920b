import { type FieldError, invalidToken, TenantAuthError, validationError } from '../errors.js';
import { clientKeys } from '../rate-limit/client-ip-key.js';
import type { RequestContext, UserRecord } from '../records.js';
import type { Services } from '../services.js';
import type { TransactionStores } from '../stores/tenant-auth-stores.js';
import { MFA_METHODS, type MfaMethod } from './mfa-types.js';
import { hashRecoveryCode, normalizeRecoveryCode } from './recovery-codes.js';
import { verifyTotp } from './totp.js';

/** Longest `mfaToken` or code taken before refusing the input as malformed. */
const FIELD_MAX_LENGTH = 256;

/** @internal The additional data a TOTP secret is sealed with: its tenant and user. */
export const totpBinding = (user: Pick<UserRecord, 'tenantId' | 'id'>) => `${user.tenantId}|${user.id}`;

/**
 * @internal The TOTP secret of `user`, opened. A secret that does not open (its data key is no longer
 * configured, or the row was altered) fails closed: `internal_error`, logged without the value.
 */
export function openTotpSecret(
  services: Pick<Services, 'sealer' | 'logger'>,
  sealedSecret: string,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
): Buffer {
  try {
    return services.sealer.open(sealedSecret, 'totp', totpBinding(user));
  } catch (err) {
    services.logger.error(
      { userId: user.id, keyId: sealedSecret.split('.')[1] ?? null, reason: (err as Error).message },
      'tenant-auth: a TOTP secret could not be opened; is its data key still configured (dataKeys.previous)?',
    );
    throw new TenantAuthError('internal_error', 'The second factor cannot be checked right now.');
  }
}

/** @internal A required string field, or its field error. */
export function stringField(value: unknown, field: string): FieldError | undefined {
  if (value === undefined || value === null)
    return { field, code: 'required', message: 'This field is required.' };
  if (typeof value !== 'string')
    return { field, code: 'invalid_type', message: `${field} must be a string.` };
  if (value.length > FIELD_MAX_LENGTH)
    return {
      field,
      code: 'too_long',
      message: `${field} must be at most ${FIELD_MAX_LENGTH} characters long.`,
    };
  return undefined;
}

/** @internal A `method` field, or its field error. */
export function methodField(value: unknown, field = 'method'): FieldError | undefined {
  if (value === undefined || value === null)
    return { field, code: 'required', message: 'This field is required.' };
  if (!(MFA_METHODS as readonly unknown[]).includes(value))
    return { field, code: 'invalid_value', message: `${field} must be one of ${MFA_METHODS.join(', ')}.` };
  return undefined;
}

/** @internal A required `credential` field (a WebAuthn response: an object), or its field error. */
export function credentialField(value: unknown, field = 'credential'): FieldError | undefined {
  if (value === undefined || value === null)
    return { field, code: 'required', message: 'This field is required.' };
  if (typeof value !== 'object' || Array.isArray(value))
    return { field, code: 'invalid_type', message: `${field} must be an object.` };
  return undefined;
}

/** @internal Throws `validation_failed` with the field errors given, if any. */
export function refuseFields(errors: (FieldError | undefined)[]): void {
  const found = errors.filter((e): e is FieldError => e !== undefined);
  if (found.length > 0) throw validationError(found);
}

/** @internal The one answer to a wrong code: the code is never repeated in it. */
export const incorrectCode = () =>
  validationError([{ field: 'code', code: 'incorrect', message: 'The code is incorrect.' }]);

/** @internal An `mfaToken` that is unknown, expired, used or dead: `invalid_token`. */
export const invalidMfaToken = () => invalidToken();

/**
 * @internal Checks a second-factor answer of `user` and, when it is right, uses it up, through `stores`
 * (a transaction's, so that it is undone when what it was for fails): a TOTP code's step is recorded by
 * compare-and-set (a code is good once per step window, and of two concurrent uses one wins), a recovery
 * code is deleted. Returns whether the answer was right and this call used it.
 */
export function createFactorAnswers(services: Pick<Services, 'sealer' | 'clock' | 'logger'>) {
  const { clock } = services;
  return async function answer(
    stores: Pick<TransactionStores, 'factors'>,
    user: Pick<UserRecord, 'tenantId' | 'id'>,
    method: MfaMethod,
    code: string,
  ): Promise<boolean> {
    const now = clock.now();
    // A passkey is no code: it is answered through its WebAuthn ceremony (passkey-answer.ts).
    if (method === 'passkey') return false;
    if (method === 'recovery_code') {
      const canonical = normalizeRecoveryCode(code);
      if (canonical === null) return false;
      const hash = hashRecoveryCode(user.id, canonical);
      return stores.factors.consumeRecoveryCode(user.tenantId, user.id, hash, now);
    }
    const factor = await stores.factors.findTotp(user.tenantId, user.id);
    if (!factor?.confirmedAt) return false;
    const secret = openTotpSecret(services, factor.sealedSecret, user);
    const step = verifyTotp({ secret, code, now, afterStep: factor.lastStep });
    if (step === null) return false;
    return stores.factors.acceptTotpStep(user.tenantId, user.id, step);
  };
}

/**
 * @internal The MFA failure budget around checking an answer: an attempt is reserved for the account
 * from this client's network before the check (parallel guesses cannot all pass) and given back when the
 * answer was right, so only wrong answers count; `rate_limited` when the account's budget is spent. Never
 * the password throttle.
 */
export async function withinMfaBudget(
  services: Pick<Services, 'limits'>,
  userId: string,
  context: RequestContext,
  check: () => Promise<boolean>,
): Promise<boolean> {
  const { network } = clientKeys(context.ipAddress ?? '');
  const reservation = await services.limits?.mfaThrottle.attempt(userId, [network]);
  const right = await check();
  if (right) await reservation?.release();
  return right;
}
