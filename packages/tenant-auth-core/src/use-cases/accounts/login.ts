import type { Background } from '../../mechanisms/background.js';
import { assertActive, assertStillActive } from '../../mechanisms/deactivation.js';
import type { EventLog } from '../../mechanisms/events/event-log.js';
import { normalizeEmail } from '../../mechanisms/inputs/email.js';
import { CONTROL_CHARACTER, ILL_FORMED, optionalText } from '../../mechanisms/inputs/inputs.js';
import { isPasswordHash, type PasswordHasher } from '../../mechanisms/passwords/hasher.js';
import { clientKeys, hashingOwner } from '../../mechanisms/rate-limit/client-ip-key.js';
import type { AttemptReservation, LoginThrottle } from '../../mechanisms/rate-limit/login-throttle.js';
import type { SecondFactorGate } from '../../mechanisms/second-factor/second-factor-gate.js';
import type { SessionTokens } from '../../mechanisms/sessions/session-tokens.js';
import { assertNotHeldToSso, heldToSso, ssoRequired } from '../../mechanisms/sso/sso-hold.js';
import type { Logger } from '../../ports/logger.js';
import type { CompleteTenantAuthStores } from '../../ports/tenant-auth-stores.js';
import type { TokenResponse } from '../../vocabulary/claims.js';
import { errorOf, type FieldError, TenantAuthError, validationError } from '../../vocabulary/errors.js';
import type { RequestContext } from '../../vocabulary/records.js';

/**
 * Input of {@link TenantAuthAccounts.login}.
 *
 * @example
 * const input: LoginInput = { email: 'ada@example.com', password: 'Correct-Horse-42' };
 */
export interface LoginInput {
  email: string;
  password: string;
  /** Free text naming the device (at most 200 characters). Default: a summary of the user agent. */
  deviceInfo?: string | undefined;
}

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** Longest email or password a login accepts before refusing the body as malformed. */
export const LOGIN_FIELD_MAX_LENGTH = 1024;

function requiredString(value: unknown, field: string): FieldError | undefined {
  if (value === undefined || value === null)
    return { field, code: 'required', message: 'This field is required.' };
  if (typeof value !== 'string')
    return { field, code: 'invalid_type', message: `${field} must be a string.` };
  if (value.length > LOGIN_FIELD_MAX_LENGTH) {
    return {
      field,
      code: 'too_long',
      message: `${field} must be at most ${LOGIN_FIELD_MAX_LENGTH} characters long.`,
    };
  }
  return undefined;
}

/** @internal Login: one code path, one error and the same work whether or not the email exists. */
export function createLogin(deps: {
  stores: CompleteTenantAuthStores;
  hasher: PasswordHasher;
  sessionTokens: SessionTokens;
  /** A bcrypt hash of a random password at the configured cost, compared when the email is unknown. */
  dummyHash: () => Promise<string>;
  throttle: LoginThrottle | undefined;
  events: EventLog;
  background: Background;
  logger: Logger;
  /** A second factor due (the user has one, or the tenant requires one): no session, a challenge. */
  secondFactor: SecondFactorGate;
}) {
  const { stores, hasher, sessionTokens, dummyHash, throttle, events, background, logger, secondFactor } =
    deps;

  return async function login(input: LoginInput, context: RequestContext = {}): Promise<TokenResponse> {
    const errors = [requiredString(input?.email, 'email'), requiredString(input?.password, 'password')];
    if (
      typeof input?.email === 'string' &&
      (CONTROL_CHARACTER.test(input.email) || ILL_FORMED.test(input.email))
    ) {
      errors.push({
        field: 'email',
        code: 'invalid_value',
        message: 'The email must be valid text without control characters.',
      });
    }
    const deviceInfo = optionalText(input?.deviceInfo, 'deviceInfo');
    if (!deviceInfo.ok) errors.push(deviceInfo.error);
    const fieldErrors = errors.filter((e): e is FieldError => e !== undefined);
    if (fieldErrors.length > 0) throw validationError(fieldErrors);

    const email = normalizeEmail(input.email);
    const client = clientKeys(context.ipAddress ?? '');
    // Reserved before the password check, atomically: parallel guesses cannot all pass a read-only check.
    let reservation: AttemptReservation | undefined;
    try {
      reservation = await throttle?.attempt(email, client.ladder);
    } catch (err) {
      events.emit({ type: 'login_failed', reason: 'throttled', ...events.unattributed(context) });
      throw err;
    }
    // Only ASCII addresses can be registered: any other cannot name an account, so no store sees it.
    const user = PRINTABLE_ASCII.test(email) ? await stores.users.findByEmail(email) : null;
    const owner = hashingOwner(context.ipAddress);
    // A user without a password (SSO-provisioned) costs the same bcrypt compare as any other, against the
    // dummy hash: no short cut tells its address apart.
    const stored = user && isPasswordHash(user.passwordHash) ? user.passwordHash : await dummyHash();
    const ok = (await hasher.verify(input.password, stored, owner)) && stored === user?.passwordHash;
    if (!user) {
      events.emit({ type: 'login_failed', reason: 'unknown_email', ...events.unattributed(context) });
      throw errorOf('invalid_credentials');
    }
    if (!ok) {
      const parties = { tenantId: user.tenantId, actorId: null, subjectId: user.id, sessionId: null };
      const event = {
        type: 'login_failed',
        reason: 'wrong_password',
        ...events.base(parties, context),
      } as const;
      // Stored after the answer, not before: a write here would make a known email answer later than an
      // unknown one.
      background.run('audit of a failed login', () => events.record(event));
      throw errorOf('invalid_credentials');
    }
    // Only failed logins count against an account: the owner's own logins give their attempt back.
    await reservation?.release();
    if (hasher.needsRehash(user.passwordHash)) {
      // The configured cost went up since this hash was made: upgrade it now that the password is known.
      try {
        await stores.users.setPasswordHash(user.tenantId, user.id, await hasher.hash(input.password, owner));
      } catch (err) {
        logger.warn(
          { err, userId: user.id },
          'tenant-auth: could not upgrade a password hash; keeping the old one',
        );
      }
    }
    // The right password of a user its tenant signs in through SSO only: refused (owners excepted).
    await assertNotHeldToSso(stores, user);
    // The right password of a deactivated account: 403 account_disabled (docs/http-api.md, "Errors added in 1.3").
    assertActive(user);
    await secondFactor.afterFirstFactor(user, ['pwd']);
    const { session, refreshToken } = await sessionTokens.newSession(
      user,
      context,
      deviceInfo.ok ? deviceInfo.value : undefined,
      ['pwd'],
    );
    const created = await events.transaction(async (tx, record) => {
      // The tenant lock orders this login with a switch of requireMfa (which takes it too): a policy
      // turned on after the check above is seen here, so no password-only session outlives its revocation.
      await tx.tenants.lock(user.tenantId);
      if ((await tx.tenants.findById(user.tenantId))?.requireMfa) return false;
      // Turning SSO's `enforce` on takes the lock too: read again under it, no password session of a held
      // user outlives the revocation that came with it.
      if (await heldToSso(tx, user)) throw ssoRequired();
      // A deactivation takes the lock too: one that committed meanwhile is seen here.
      await assertStillActive(tx, user);
      await tx.sessions.create(session);
      const parties = {
        tenantId: user.tenantId,
        actorId: user.id,
        subjectId: user.id,
        sessionId: session.id,
      };
      await record({ type: 'login_succeeded', ...events.base(parties, context) });
      return true;
    });
    if (!created) {
      // The tenant began to require a second factor meanwhile: the gate answers as it now must.
      await secondFactor.afterFirstFactor(user, ['pwd']);
      throw new TenantAuthError('unavailable', 'The sign-in could not complete; try again.');
    }
    return sessionTokens.respond(session, user, refreshToken, true);
  };
}
