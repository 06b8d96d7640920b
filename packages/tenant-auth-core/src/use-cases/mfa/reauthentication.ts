import { actingUser } from '../../mechanisms/authorization.js';
import { auditRecordOf } from '../../mechanisms/events/event-log.js';
import { clientKeys, hashingOwner } from '../../mechanisms/rate-limit/client-ip-key.js';
import { factorMethods } from '../../mechanisms/second-factor/second-factor-gate.js';
import type { Services } from '../../mechanisms/services.js';
import { heldToSso, ssoRequired } from '../../mechanisms/sso/sso-hold.js';
import type { AccessClaims, AuthMethod, TokenResponse } from '../../vocabulary/claims.js';
import { incorrectPassword, invalidToken } from '../../vocabulary/errors.js';
import type { ReauthenticateInput } from '../../vocabulary/mfa-types.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import {
  type FactorAnswer,
  incorrectCode,
  methodField,
  refuseFields,
  stringField,
  withinFactorLock,
} from './factor-answers.js';
import { createPasskeyProof, createReauthenticationOptions } from './passkey-answer.js';
import { withSecondFactor } from './verification.js';

/**
 * @internal `TenantAuth.reauthenticate` (docs/http-api.md, "Recent authentication"): proving again who
 * the caller is, for the same session, to pass the recent-authentication check (`services.requireRecent`)
 * again; and `reauthenticationOptions`, the passkey request options for it.
 */
export function createReauthentication(services: Services, answer: FactorAnswer) {
  const { stores, clock, events, hasher, sessionTokens, limits } = services;
  const provePasskey = createPasskeyProof(services);

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
    // A user held to SSO proves itself at its provider only: a password or passkey here would lift a
    // session SSO made (docs/http-api.md, "Rules that change in 1.3": re-authentication never lowers a session).
    if (await heldToSso(stores, user)) throw ssoRequired();
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
      const right = await withinFactorLock(services, user, context, () => answer(stores, user, method, code));
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
      {
        ...next,
        // No reuse grace (docs/http-api.md, "Rules that change in 1.3"): within it the previous token
        // would be handed the child this rotation makes, with the `amr` and `authTime` just proven. As if
        // rotated long ago, the previous token is a replay from now on.
        rotatedAt: new Date(0),
        amr,
        authTime: new Date(Math.floor(now.getTime() / 1000) * 1000),
      },
      auditRecordOf(event),
    );
    if (!done) throw invalidToken();
    events.emit(event);
    return sessionTokens.respond(done, user, refreshToken, true);
  }

  return { reauthenticate, reauthenticationOptions: createReauthenticationOptions(services) };
}
