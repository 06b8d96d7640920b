import { actingUser } from '../authorization.js';
import type { AccessClaims, AuthMethod, TokenResponse } from '../claims.js';
import { configurationError, incorrectPassword, invalidToken, TenantAuthError } from '../errors.js';
import { auditRecordOf } from '../events/event-log.js';
import { clientKeys, hashingOwner } from '../rate-limit/client-ip-key.js';
import type { RequestContext, UserRecord } from '../records.js';
import type { Services } from '../services.js';
import {
  createFactorAnswers,
  incorrectCode,
  methodField,
  refuseFields,
  stringField,
  withinMfaBudget,
} from './factor-answers.js';
import type { ReauthenticateInput } from './mfa-types.js';
import { createPasskeyProof, createReauthenticationOptions } from './passkey-answer.js';
import { factorMethods } from './second-factor-gate.js';
import { withSecondFactor } from './verification.js';

/** @internal The one answer when an operation needs a fresher or stronger authentication. */
export const reauthenticationRequired = () =>
  new TenantAuthError(
    'reauthentication_required',
    'Confirm who you are again (POST /auth/reauthenticate), then retry.',
  );

/**
 * @internal Recent authentication (API.md 1.2): `requireRecentAuth`, the check of the routes marked
 * recent, and `reauthenticate`, the way to pass it again without a new session.
 */
export function createRecentAuth(services: Services) {
  const { stores, clock, events, hasher, sessionTokens, limits, reauthMaxAgeSeconds } = services;
  const answer = createFactorAnswers(services);
  const provePasskey = createPasskeyProof(services);

  /**
   * The caller, when its session is active, its `authTime` at most `maxAgeSeconds` old and, when it has
   * a factor, its `amr` has `mfa`; otherwise `reauthentication_required` (`invalid_token` for a session
   * no longer active). The factor state is read now, not taken from the token.
   */
  async function requireRecent(
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
    return user;
  }

  /** A wrong password here counts towards the account's login throttle, as at login. */
  async function checkPassword(user: UserRecord, password: string, context: RequestContext): Promise<void> {
    const reservation = await limits?.loginThrottle.attempt(
      user.email,
      clientKeys(context.ipAddress ?? '').ladder,
    );
    const ok = await hasher.verify(password, user.passwordHash, hashingOwner(context.ipAddress));
    if (!ok) throw incorrectPassword('password');
    await reservation?.release();
  }

  async function reauthenticate(
    claims: AccessClaims,
    input: ReauthenticateInput,
    context: RequestContext = {},
  ): Promise<TokenResponse> {
    const now = clock.now();
    const user = await actingUser(stores, claims, now);
    const methods = await factorMethods(stores, user);
    if (input?.method === 'passkey' && methods.includes('passkey'))
      return withNewProof(claims, user, await provePasskey(claims, user, input.credential, context), context);
    const strong = methods.length > 0;
    refuseFields([
      stringField(input?.password, 'password'),
      ...(strong ? [methodField(input?.method), stringField(input?.code, 'code')] : []),
    ]);
    await checkPassword(user, input.password as string, context);
    if (strong) {
      const { method, code } = input as Required<ReauthenticateInput>;
      const right = await withinMfaBudget(services, user.id, context, () =>
        answer(stores, user, method, code),
      );
      if (!right) {
        const parties = {
          tenantId: user.tenantId,
          actorId: user.id,
          subjectId: user.id,
          sessionId: claims.sessionId,
        };
        await events.record({ type: 'mfa_challenge_failed', ...events.base(parties, context) });
        throw incorrectCode();
      }
    }
    return withNewProof(claims, user, strong ? withSecondFactor(['pwd']) : ['pwd'], context);
  }

  /** The same session, rotated, with `authTime` now and `amr` as just proven. */
  async function withNewProof(
    claims: AccessClaims,
    user: UserRecord,
    amr: AuthMethod[],
    context: RequestContext,
  ): Promise<TokenResponse> {
    const now = clock.now();
    const session = await stores.sessions.findById(claims.tenantId, claims.sessionId);
    if (!session) throw invalidToken();
    const { refreshToken, next } = await sessionTokens.rotationFor(session, now);
    const parties = { tenantId: user.tenantId, actorId: user.id, subjectId: user.id, sessionId: session.id };
    const event = { type: 'reauthenticated', ...events.base(parties, context) } as const;
    const done = await stores.sessions.reauthenticate(
      user.tenantId,
      session.id,
      user.id,
      { ...next, amr, authTime: new Date(Math.floor(now.getTime() / 1000) * 1000) },
      auditRecordOf(event),
    );
    if (!done) throw invalidToken();
    events.emit(event);
    return sessionTokens.respond(done, user, refreshToken, true);
  }

  return { requireRecent, reauthenticate, reauthenticationOptions: createReauthenticationOptions(services) };
}
