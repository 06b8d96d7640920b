import { clientKeys } from '../../mechanisms/rate-limit/client-ip-key.js';
import { TOTP_SECRET_PURPOSE, totpBinding } from '../../mechanisms/sealing/stored-values.js';
import { normalizeRecoveryCode, recoveryCodeHashes } from '../../mechanisms/second-factor/recovery-codes.js';
import { verifyTotp } from '../../mechanisms/second-factor/totp.js';
import type { Services } from '../../mechanisms/services.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { type FieldError, invalidToken, TenantAuthError, validationError } from '../../vocabulary/errors.js';
import { MFA_METHODS, type MfaMethod } from '../../vocabulary/mfa-types.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';

/** Longest `mfaToken` or code taken before refusing the input as malformed. */
const FIELD_MAX_LENGTH = 256;

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
    return services.sealer.open(sealedSecret, TOTP_SECRET_PURPOSE, totpBinding(user));
  } catch (err) {
    services.logger.error(
      {
        userId: user.id,
        keyId: services.sealer.keyIdOf(sealedSecret),
        code: (err as { code?: unknown }).code,
        reason: (err as Error).message,
      },
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
    stores: Pick<CompleteTransactionStores, 'factors'>,
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
      // Keyed with the current data key, an older one, or (a set made before 1.3) not at all.
      for (const hash of recoveryCodeHashes(services.sealer, user.id, canonical))
        if (await stores.factors.consumeRecoveryCode(user.tenantId, user.id, hash, now)) return true;
      return false;
    }
    const factor = await stores.factors.findTotp(user.tenantId, user.id);
    if (!factor?.confirmedAt) return false;
    const secret = openTotpSecret(services, factor.sealedSecret, user);
    const step = verifyTotp({ secret, code, now, afterStep: factor.lastStep });
    if (step === null) return false;
    return stores.factors.acceptTotpStep(user.tenantId, user.id, step);
  };
}

/** @internal */
export type FactorAnswer = ReturnType<typeof createFactorAnswers>;

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

/**
 * @internal A TOTP or recovery-code answer of a user who has the factor, checked under the MFA budget
 * and the second-factor lock: `rate_limited` while the account is locked (the code is not even checked);
 * the answer is counted before it is checked (concurrent wrong answers cannot all pass the check), a right
 * one starts the count again.
 */
export async function withinFactorLock(
  services: Pick<Services, 'limits' | 'factorLock'>,
  user: Pick<UserRecord, 'tenantId' | 'id' | 'email'>,
  context: RequestContext,
  check: () => Promise<boolean>,
): Promise<boolean> {
  return services.factorLock.guard(user, () => withinMfaBudget(services, user.id, context, check));
}
