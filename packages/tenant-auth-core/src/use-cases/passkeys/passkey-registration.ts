import { assertActive } from '../../mechanisms/deactivation.js';
import { optionalText } from '../../mechanisms/inputs/inputs.js';
import { storeNewRecoveryCodes } from '../../mechanisms/second-factor/recovery-codes.js';
import {
  assertNoFactorYet,
  mfaTokenHash,
  voidChallenges,
} from '../../mechanisms/second-factor/second-factor-gate.js';
import type { Services } from '../../mechanisms/services.js';
import { assertNotHeldToSso } from '../../mechanisms/sso/sso-hold.js';
import { invalidCredential, withPasskey } from '../../mechanisms/webauthn/passkey-ceremonies.js';
import type { MfaChallengeRecord } from '../../ports/factor-store.js';
import type { PasskeyRecord } from '../../ports/passkey-store.js';
import type { AccessClaims, TokenResponse } from '../../vocabulary/claims.js';
import { invalidToken, validationError } from '../../vocabulary/errors.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import type { MfaCaller } from '../../vocabulary/mfa-types.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import type { AddPasskeyInput, AddPasskeyResult, PasskeyInfo } from './passkey-types.js';

/** @internal A passkey as its owner sees it. */
export const passkeyInfo = (p: PasskeyRecord): PasskeyInfo => ({
  id: p.id,
  name: p.name,
  createdAt: p.createdAt,
  lastUsedAt: p.lastUsedAt,
});

/** Who registers: a signed-in user (recently), or the holder of a setup challenge. */
interface Registering {
  user: UserRecord;
  claims: AccessClaims | null;
  challenge: MfaChallengeRecord | null;
}

/** @internal Registering a passkey: its options, and the registration itself. */
export function createPasskeyRegistration(services: Services) {
  const { stores, clock, random, events, sessionTokens, ceremonies, requireRecent } = services;

  async function registering(caller: MfaCaller): Promise<Registering> {
    if (typeof caller !== 'object' || caller === null) throw invalidToken();
    if ('claims' in caller)
      return { user: await requireRecent(caller.claims), claims: caller.claims, challenge: null };
    if (typeof caller.mfaToken !== 'string') throw invalidToken();
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

  async function passkeyRegistrationOptions(caller: MfaCaller) {
    const { user } = await registering(caller);
    return ceremonies.creationOptions(user, await stores.passkeys.listForUser(user.tenantId, user.id));
  }

  async function addPasskey(
    caller: MfaCaller,
    input: AddPasskeyInput,
    context: RequestContext = {},
  ): Promise<AddPasskeyResult> {
    const { user, claims, challenge } = await registering(caller);
    const name = optionalText(input?.name, 'name');
    const deviceInfo = optionalText(input?.deviceInfo, 'deviceInfo');
    const errors = [name, deviceInfo].flatMap((c) => (c.ok ? [] : [c.error]));
    if (errors.length > 0) throw validationError(errors);
    const made = await ceremonies.verifyRegistration(user, input?.credential);
    if (!made) throw invalidCredential();
    const now = clock.now();
    const passkey: PasskeyRecord = {
      id: uuidv7(clock, random),
      tenantId: user.tenantId,
      userId: user.id,
      ...made,
      name: (name.ok && name.value) || 'Passkey',
      createdAt: now,
      lastUsedAt: null,
    };
    const session = challenge
      ? await sessionTokens.newSession(
          user,
          context,
          deviceInfo.ok ? deviceInfo.value : undefined,
          withPasskey(challenge.amr),
        )
      : null;
    const recoveryCodes = await events.transaction(async (tx, record) => {
      if (challenge && !(await tx.factors.consumeChallenge(challenge.tokenHash, now))) throw invalidToken();
      if (challenge) await assertNoFactorYet(tx, user);
      // The credential id is unique across tenants: of two registrations of one, one is stored.
      if (!(await tx.passkeys.add(passkey))) throw invalidCredential();
      await voidChallenges(tx, user);
      const codes =
        challenge && (await tx.factors.countRecoveryCodes(user.tenantId, user.id)) === 0
          ? await storeNewRecoveryCodes(services, tx, user)
          : null;
      if (session) await tx.sessions.create(session.session);
      const parties = {
        tenantId: user.tenantId,
        actorId: user.id,
        subjectId: user.id,
        sessionId: session?.session.id ?? claims?.sessionId ?? null,
      };
      await record({ type: 'passkey_added', ...events.base(parties, context) });
      return codes;
    });
    const tokens: TokenResponse | null = session
      ? await sessionTokens.respond(session.session, user, session.refreshToken, true)
      : null;
    return { passkey: passkeyInfo(passkey), tokens, recoveryCodes };
  }

  return { passkeyRegistrationOptions, addPasskey };
}
