import { actingUser } from '../../mechanisms/authorization.js';
import { mfaTokenHash } from '../../mechanisms/second-factor/second-factor-gate.js';
import type { Services } from '../../mechanisms/services.js';
import {
  auditCounterRegression,
  invalidCredential,
  recordPasskeySignIn,
  withPasskey,
} from '../../mechanisms/webauthn/passkey-ceremonies.js';
import type { MfaChallengeRecord } from '../../ports/factor-store.js';
import type { AccessClaims, AuthMethod, TokenResponse } from '../../vocabulary/claims.js';
import { invalidToken, type TenantAuthError } from '../../vocabulary/errors.js';
import type { VerifyMfaInput } from '../../vocabulary/mfa-types.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import { credentialField, refuseFields, stringField, withinMfaBudget } from './factor-answers.js';

/**
 * @internal The passkey answer to a login's challenge (`verifyMfa` with `method: 'passkey'`): the
 * assertion must be one of the challenge's user, made with the options of `mfaPasskeyOptions`. A wrong
 * answer counts as a wrong code does (on the challenge, and against the MFA budget).
 */
export function createPasskeyAnswer(
  services: Services,
  failed: (challenge: MfaChallengeRecord, context: RequestContext, answer: TenantAuthError) => Promise<never>,
) {
  const { clock, events, sessionTokens, ceremonies } = services;
  return async function verifyPasskey(
    challenge: MfaChallengeRecord,
    user: UserRecord,
    input: VerifyMfaInput,
    context: RequestContext,
  ): Promise<TokenResponse> {
    let response: TokenResponse | undefined;
    const right = await withinMfaBudget(services, user.id, context, async () => {
      const check = await ceremonies.verifyAssertion('mfa', input.credential, user);
      await auditCounterRegression(events, check, context);
      if (!check.ok) return false;
      const made = await sessionTokens.newSession(
        user,
        context,
        typeof input.deviceInfo === 'string' ? input.deviceInfo : undefined,
        withPasskey(challenge.amr),
      );
      const used = await events.transaction(async (tx, record) => {
        if (!(await tx.factors.consumeChallenge(challenge.tokenHash, clock.now()))) throw invalidToken();
        const signIn = { user, check, session: made.session, at: clock.now(), context };
        return recordPasskeySignIn(tx, record, events, signIn);
      });
      if (used) response = await sessionTokens.respond(made.session, user, made.refreshToken, true);
      return used;
    });
    if (!right || !response) return failed(challenge, context, invalidCredential());
    return response;
  };
}

/** @internal `TenantAuth.mfaPasskeyOptions`: request options for the passkeys of a login's challenge. */
export function createMfaPasskeyOptions(services: Services) {
  const { stores, clock, ceremonies } = services;
  return async function mfaPasskeyOptions(input: { mfaToken: string }) {
    refuseFields([stringField(input?.mfaToken, 'mfaToken')]);
    const challenge = await stores.factors.findChallenge(mfaTokenHash(input.mfaToken), clock.now());
    if (challenge?.purpose !== 'verify') throw invalidToken();
    const user = await stores.users.findById(challenge.tenantId, challenge.userId);
    if (!user) throw invalidToken();
    const passkeys = await stores.passkeys.listForUser(user.tenantId, user.id);
    return ceremonies.requestOptions('mfa', user, passkeys);
  };
}

/**
 * @internal A passkey's assertion, made for a re-authentication of `user` (with the options of
 * `reauthenticationOptions`): the `amr` it proves, or `invalid_credential` (counted against the MFA budget,
 * and audited as a failed challenge).
 */
export function createPasskeyProof(services: Services) {
  const { stores, clock, events, ceremonies } = services;
  return async function provePasskey(
    claims: AccessClaims,
    user: UserRecord,
    credential: unknown,
    context: RequestContext,
  ): Promise<AuthMethod[]> {
    refuseFields([credentialField(credential)]);
    const right = await withinMfaBudget(services, user.id, context, async () => {
      const check = await ceremonies.verifyAssertion('reauthentication', credential, user);
      await auditCounterRegression(events, check, context, claims.sessionId);
      if (!check.ok) return false;
      const use = { expectedCounter: check.passkey.counter, counter: check.counter, at: clock.now() };
      return stores.passkeys.recordUse(user.tenantId, check.passkey.id, use);
    });
    if (!right) {
      const parties = {
        tenantId: user.tenantId,
        actorId: user.id,
        subjectId: user.id,
        sessionId: claims.sessionId,
      };
      await events.record({ type: 'mfa_challenge_failed', ...events.base(parties, context) });
      throw invalidCredential();
    }
    return withPasskey([]);
  };
}

/** @internal `TenantAuth.reauthenticationOptions`: request options for the caller's passkeys. */
export function createReauthenticationOptions(services: Services) {
  const { stores, clock, ceremonies } = services;
  return async function reauthenticationOptions(claims: AccessClaims) {
    const user = await actingUser(stores, claims, clock.now());
    const passkeys = await stores.passkeys.listForUser(user.tenantId, user.id);
    return ceremonies.requestOptions('reauthentication', user, passkeys);
  };
}
