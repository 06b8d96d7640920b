import { createHash } from 'node:crypto';
import type { MfaChallengePurpose } from '../../ports/factor-store.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { AuthMethod } from '../../vocabulary/auth-methods.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import { errorOf, invalidToken } from '../../vocabulary/errors.js';
import type { MfaMethod } from '../../vocabulary/mfa-types.js';
import type { UserRecord } from '../../vocabulary/records.js';

/** @internal How long an `mfaToken` lives (docs/http-api.md, "Second factor: TOTP and recovery codes"): 5 minutes. */
export const MFA_CHALLENGE_TTL_SECONDS = 300;

/** @internal Wrong answers after which a challenge is dead. */
export const MFA_CHALLENGE_MAX_FAILURES = 5;

/** @internal SHA-256 (hex) of an `mfaToken`: the only form in which one is stored. */
export function mfaTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** @internal The user's second factors, as `methods` lists them; empty when the user has none. */
export async function factorMethods(
  stores: Pick<CompleteTransactionStores, 'factors' | 'passkeys'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
): Promise<MfaMethod[]> {
  const totp = await stores.factors.findTotp(user.tenantId, user.id);
  const passkeys = await stores.passkeys.countForUser(user.tenantId, user.id);
  const methods: MfaMethod[] = [];
  if (totp?.confirmedAt) methods.push('totp');
  if (passkeys > 0) methods.push('passkey');
  if (methods.length === 0) return [];
  // Recovery codes count only beside a factor (they go with the last one).
  if ((await stores.factors.countRecoveryCodes(user.tenantId, user.id)) > 0) methods.push('recovery_code');
  return methods;
}

/**
 * @internal A setup challenge (`mfa_setup_required`) enrols only while its user has no factor
 * (docs/http-api.md, "Rules that change in 1.3"): `invalid_token` once it has one.
 */
export async function assertNoFactorYet(
  stores: Pick<CompleteTransactionStores, 'factors' | 'passkeys'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
): Promise<void> {
  if ((await factorMethods(stores, user)).length > 0) throw invalidToken();
}

/**
 * @internal A factor was enrolled: every challenge of the user issued before is void (through the
 * transaction's stores; a store without the verb lets them expire).
 */
export async function voidChallenges(
  stores: Pick<CompleteTransactionStores, 'factors'>,
  user: Pick<UserRecord, 'tenantId' | 'id'>,
): Promise<void> {
  await stores.factors.deleteChallengesForUser?.(user.tenantId, user.id);
}

/**
 * @internal What every first factor passes through before a session is made (password login, invitation
 * acceptance): when a second factor is due, no session; a challenge instead, thrown as `mfa_required`
 * (the user has a factor) or `mfa_setup_required` (the tenant requires one and the user has none).
 */
export function createSecondFactorGate(deps: {
  stores: Pick<CompleteTransactionStores, 'factors' | 'passkeys' | 'tenants'>;
  clock: Clock;
  random: RandomBytes;
}) {
  const { stores, clock, random } = deps;

  /** Stores a challenge for `user` and returns its token (shown once; only its hash is kept). */
  async function issue(
    user: Pick<UserRecord, 'tenantId' | 'id'>,
    purpose: MfaChallengePurpose,
    amr: AuthMethod[],
  ): Promise<string> {
    const token = Buffer.from(random(32)).toString('base64url');
    const now = clock.now();
    await stores.factors.createChallenge({
      tokenHash: mfaTokenHash(token),
      tenantId: user.tenantId,
      userId: user.id,
      purpose,
      amr,
      createdAt: now,
      expiresAt: new Date(now.getTime() + MFA_CHALLENGE_TTL_SECONDS * 1000),
    });
    return token;
  }

  /** The `mfa_setup_required` error for `user`, with a new setup challenge. */
  async function setupRequired(user: Pick<UserRecord, 'tenantId' | 'id'>, amr: AuthMethod[]) {
    const mfaToken = await issue(user, 'setup', amr);
    return errorOf('mfa_setup_required', {
      extensions: { mfaToken, expiresIn: MFA_CHALLENGE_TTL_SECONDS },
    });
  }

  return {
    setupRequired,
    /**
     * Throws `mfa_required` or `mfa_setup_required` (with a new challenge) when `user`, who just proved
     * the first factor `amr`, needs a second one; resolves when a session may be made.
     */
    async afterFirstFactor(user: UserRecord, amr: AuthMethod[]): Promise<void> {
      const methods = await factorMethods(stores, user);
      if (methods.length > 0) {
        const mfaToken = await issue(user, 'verify', amr);
        throw errorOf('mfa_required', {
          extensions: { mfaToken, methods, expiresIn: MFA_CHALLENGE_TTL_SECONDS },
        });
      }
      const tenant = await stores.tenants.findById(user.tenantId);
      if (tenant?.requireMfa) throw await setupRequired(user, amr);
    },
  };
}

/** @internal */
export type SecondFactorGate = ReturnType<typeof createSecondFactorGate>;
