import { assertActive, assertStillActive } from '../../mechanisms/deactivation.js';
import { optionalText } from '../../mechanisms/inputs/inputs.js';
import {
  MFA_CHALLENGE_MAX_FAILURES,
  mfaTokenHash,
} from '../../mechanisms/second-factor/second-factor-gate.js';
import type { Services } from '../../mechanisms/services.js';
import { assertNotHeldToSso } from '../../mechanisms/sso/sso-hold.js';
import type { MfaChallengeRecord } from '../../ports/factor-store.js';
import type { AuthMethod, TokenResponse } from '../../vocabulary/claims.js';
import type { TenantAuthError } from '../../vocabulary/errors.js';
import type { VerifyMfaInput } from '../../vocabulary/mfa-types.js';
import type { RequestContext } from '../../vocabulary/records.js';
import {
  credentialField,
  type FactorAnswer,
  incorrectCode,
  invalidMfaToken,
  methodField,
  refuseFields,
  stringField,
  withinFactorLock,
} from './factor-answers.js';
import { createPasskeyAnswer } from './passkey-answer.js';

/** Thrown inside a transaction to undo it when the answer was wrong. */
class WrongAnswer extends Error {}

/** @internal The `amr` of a session made after a second factor: the first factor's, then `otp` and `mfa`. */
export const withSecondFactor = (first: readonly AuthMethod[]): AuthMethod[] => [
  ...first.filter((m) => m !== 'otp' && m !== 'mfa'),
  'otp',
  'mfa',
];

/**
 * @internal A wrong answer to a challenge: counted on it (the fifth kills it) and in the audit log, never
 * with the code or the token.
 */
export function createChallengeFailures(services: Services) {
  const { stores, events } = services;
  return async function failed(
    challenge: MfaChallengeRecord,
    context: RequestContext,
    answer: TenantAuthError = incorrectCode(),
  ): Promise<never> {
    const failures = await stores.factors.recordChallengeFailure(challenge.tokenHash);
    // The fifth wrong answer kills the challenge (consumed as of the epoch: whatever its expiry).
    if (failures >= MFA_CHALLENGE_MAX_FAILURES)
      await stores.factors.consumeChallenge(challenge.tokenHash, new Date(0));
    const parties = {
      tenantId: challenge.tenantId,
      actorId: null,
      subjectId: challenge.userId,
      sessionId: null,
    };
    await events.record({ type: 'mfa_challenge_failed', ...events.base(parties, context) });
    throw answer;
  };
}

/** @internal */
export type ChallengeFailed = ReturnType<typeof createChallengeFailures>;

/** @internal `TenantAuth.verifyMfa`: the second step of a login. */
export function createMfaVerification(services: Services, answer: FactorAnswer, failed: ChallengeFailed) {
  const { stores, clock, events, sessionTokens } = services;
  const verifyPasskey = createPasskeyAnswer(services, failed);

  return async function verifyMfa(
    input: VerifyMfaInput,
    context: RequestContext = {},
  ): Promise<TokenResponse> {
    const deviceInfo = optionalText(input?.deviceInfo, 'deviceInfo');
    const passkey = input?.method === 'passkey';
    refuseFields([
      stringField(input?.mfaToken, 'mfaToken'),
      methodField(input?.method),
      passkey ? credentialField(input?.credential) : stringField(input?.code, 'code'),
      deviceInfo.ok ? undefined : deviceInfo.error,
    ]);
    const hash = mfaTokenHash(input.mfaToken);
    const challenge = await stores.factors.findChallenge(hash, clock.now());
    if (challenge?.purpose !== 'verify') throw invalidMfaToken();
    const user = await stores.users.findById(challenge.tenantId, challenge.userId);
    if (!user) throw invalidMfaToken();
    // A login's challenge outlives no deactivation: the same answer as the password login now.
    assertActive(user);
    // A challenge a password began before the tenant enforced SSO (which revoked the user's password
    // sessions) makes no new one: the same refusal as the password login now.
    await assertNotHeldToSso(stores, user);
    if (passkey) return verifyPasskey(challenge, user, input, context);

    let response: TokenResponse | undefined;
    const right = await withinFactorLock(services, user, context, async () => {
      const amr = withSecondFactor(challenge.amr);
      const made = await sessionTokens.newSession(
        user,
        context,
        deviceInfo.ok ? deviceInfo.value : undefined,
        amr,
      );
      try {
        await events.transaction(async (tx, record) => {
          // The challenge is used up in the transaction that makes the session: of two concurrent answers
          // one gets it; a wrong answer rolls it back, still usable.
          if (!(await tx.factors.consumeChallenge(hash, clock.now()))) throw invalidMfaToken();
          if (!(await answer(tx, user, input.method, input.code as string))) throw new WrongAnswer();
          await assertStillActive(tx, user);
          await tx.sessions.create(made.session);
          const parties = {
            tenantId: user.tenantId,
            actorId: user.id,
            subjectId: user.id,
            sessionId: made.session.id,
          };
          if (input.method === 'recovery_code')
            await record({ type: 'recovery_code_used', ...events.base(parties, context) });
          await record({ type: 'login_succeeded', ...events.base(parties, context) });
        });
      } catch (err) {
        if (err instanceof WrongAnswer) return false;
        throw err;
      }
      response = await sessionTokens.respond(made.session, user, made.refreshToken, true);
      return true;
    });
    if (!right || !response) return failed(challenge, context);
    return response;
  };
}
