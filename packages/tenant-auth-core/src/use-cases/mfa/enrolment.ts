import { assertActive } from '../../mechanisms/deactivation.js';
import { optionalText } from '../../mechanisms/inputs/inputs.js';
import { TOTP_SECRET_PURPOSE, totpBinding } from '../../mechanisms/sealing/stored-values.js';
import { storeNewRecoveryCodes } from '../../mechanisms/second-factor/recovery-codes.js';
import {
  assertNoFactorYet,
  mfaTokenHash,
  voidChallenges,
} from '../../mechanisms/second-factor/second-factor-gate.js';
import { newTotpSecret, totpUri, verifyTotp } from '../../mechanisms/second-factor/totp.js';
import type { Services } from '../../mechanisms/services.js';
import { assertNotHeldToSso } from '../../mechanisms/sso/sso-hold.js';
import type { MfaChallengeRecord } from '../../ports/factor-store.js';
import type { AccessClaims, TokenResponse } from '../../vocabulary/claims.js';
import { errorOf, invalidToken, TenantAuthError } from '../../vocabulary/errors.js';
import type {
  ConfirmTotpInput,
  ConfirmTotpResult,
  MfaCaller,
  TotpSetup,
} from '../../vocabulary/mfa-types.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import {
  incorrectCode,
  openTotpSecret,
  refuseFields,
  stringField,
  withinMfaBudget,
} from './factor-answers.js';
import { type ChallengeFailed, withSecondFactor } from './verification.js';

const alreadyEnabled = () => errorOf('already_enabled');

/** Who enrols: a signed-in user (recently), or the holder of a setup challenge. */
interface Enrolling {
  user: UserRecord;
  claims: AccessClaims | null;
  challenge: MfaChallengeRecord | null;
}

/** @internal TOTP enrolment: `setupTotp` and `confirmTotp`. */
export function createTotpEnrolment(services: Services, failed: ChallengeFailed) {
  const { stores, clock, random, events, sealer, sessionTokens, totpIssuer, requireRecent } = services;

  async function enrolling(caller: MfaCaller): Promise<Enrolling> {
    if (typeof caller !== 'object' || caller === null) throw invalidToken();
    if ('claims' in caller)
      return { user: await requireRecent(caller.claims), claims: caller.claims, challenge: null };
    refuseFields([stringField(caller.mfaToken, 'mfaToken')]);
    const challenge = await stores.factors.findChallenge(mfaTokenHash(caller.mfaToken), clock.now());
    if (challenge?.purpose !== 'setup') throw invalidToken();
    const user = await stores.users.findById(challenge.tenantId, challenge.userId);
    if (!user) throw invalidToken();
    // A setup challenge outlives no deactivation.
    assertActive(user);
    // A setup challenge a password began before the tenant enforced SSO makes no session after it.
    await assertNotHeldToSso(stores, user);
    await assertNoFactorYet(stores, user);
    return { user, claims: null, challenge };
  }

  async function setupTotp(caller: MfaCaller, _context: RequestContext = {}): Promise<TotpSetup> {
    const { user } = await enrolling(caller);
    const secret = newTotpSecret(random);
    const sealedSecret = sealer.seal(secret.bytes, TOTP_SECRET_PURPOSE, totpBinding(user));
    if (
      !(await stores.factors.saveTotpSetup(user.tenantId, user.id, { sealedSecret, createdAt: clock.now() }))
    )
      throw alreadyEnabled();
    return {
      secret: secret.base32,
      otpauthUri: totpUri({ issuer: totpIssuer, account: user.email, secret: secret.bytes }),
    };
  }

  /** The step the code of the pending setup belongs to, or `null`; `already_enabled` when none is pending. */
  async function pendingStep(user: UserRecord, code: string): Promise<number | null> {
    const factor = await stores.factors.findTotp(user.tenantId, user.id);
    if (!factor) throw new TenantAuthError('not_found', 'Start a TOTP setup first.');
    if (factor.confirmedAt) throw alreadyEnabled();
    const secret = openTotpSecret(services, factor.sealedSecret, user);
    return verifyTotp({ secret, code, now: clock.now() });
  }

  async function confirmTotp(
    caller: MfaCaller,
    input: ConfirmTotpInput,
    context: RequestContext = {},
  ): Promise<ConfirmTotpResult> {
    const { user, claims, challenge } = await enrolling(caller);
    const deviceInfo = optionalText(input?.deviceInfo, 'deviceInfo');
    refuseFields([stringField(input?.code, 'code'), deviceInfo.ok ? undefined : deviceInfo.error]);
    let step: number | null = null;
    const right = await withinMfaBudget(services, user.id, context, async () => {
      step = await pendingStep(user, input.code);
      return step !== null;
    });
    if (!right || step === null) {
      if (challenge) return failed(challenge, context);
      throw incorrectCode();
    }
    const made = challenge
      ? await sessionTokens.newSession(
          user,
          context,
          deviceInfo.ok ? deviceInfo.value : undefined,
          withSecondFactor(challenge.amr),
        )
      : null;
    const now = clock.now();
    const recoveryCodes = await events.transaction(async (tx, record) => {
      if (challenge && !(await tx.factors.consumeChallenge(challenge.tokenHash, now))) throw invalidToken();
      if (challenge) await assertNoFactorYet(tx, user);
      if (!(await tx.factors.confirmTotp(user.tenantId, user.id, step as number, now)))
        throw alreadyEnabled();
      await voidChallenges(tx, user);
      const codes =
        (await tx.factors.countRecoveryCodes(user.tenantId, user.id)) === 0
          ? await storeNewRecoveryCodes(services, tx, user)
          : null;
      const keep = made?.session.id ?? claims?.sessionId;
      await tx.sessions.revokeAllForUser(
        user.tenantId,
        user.id,
        now,
        keep === undefined ? {} : { exceptSessionId: keep },
      );
      if (made) await tx.sessions.create(made.session);
      const parties = {
        tenantId: user.tenantId,
        actorId: user.id,
        subjectId: user.id,
        sessionId: keep ?? null,
      };
      await record({ type: 'mfa_enabled', ...events.base(parties, context) });
      return codes;
    });
    services.cache.forgetAll();
    const tokens: TokenResponse | null = made
      ? await sessionTokens.respond(made.session, user, made.refreshToken, true)
      : null;
    return { recoveryCodes, tokens };
  }

  return { setupTotp, confirmTotp };
}
