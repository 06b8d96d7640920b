import { createHash } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { decodeClientDataJSON, isoBase64URL } from '@simplewebauthn/server/helpers';
import type { PasskeyRecord, PasskeyStore, WebAuthnChallengePurpose } from '../../ports/passkey-store.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { AuthEvent } from '../../vocabulary/auth-event.js';
import type { AuthMethod } from '../../vocabulary/auth-methods.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import { configurationError, validationError } from '../../vocabulary/errors.js';
import type { RequestContext, SessionRecord, UserRecord } from '../../vocabulary/records.js';
import type { EventLog } from '../events/event-log.js';
import type { RelyingParty } from './relying-party.js';

/** @internal How long a WebAuthn challenge lives: 5 minutes. */
export const WEBAUTHN_CHALLENGE_TTL_SECONDS = 300;

/** Longest credential id taken (authenticators use at most 1023 bytes). */
const CREDENTIAL_ID_MAX_LENGTH = 1400;

/** @internal The `amr` of a session a passkey made, after the first factor `first` (none for a passkey login). */
export const withPasskey = (first: readonly AuthMethod[]): AuthMethod[] => [
  ...first.filter((m) => m !== 'otp' && m !== 'hwk' && m !== 'mfa'),
  'hwk',
  'mfa',
];

/** @internal The one answer to a WebAuthn response that does not hold. */
export const invalidCredential = () =>
  validationError([
    { field: 'credential', code: 'invalid_credential', message: 'The passkey response is not valid.' },
  ]);

/** @internal The user handle of a user's passkeys: the UTF-8 bytes of the user's id. */
const userHandleOf = (userId: string) => new TextEncoder().encode(userId);

/** @internal What checking a passkey assertion found. */
export type AssertionCheck =
  | { ok: true; passkey: PasskeyRecord; counter: number }
  | { ok: false; reason: 'malformed' | 'challenge' | 'unknown' | 'signature' }
  | { ok: false; reason: 'counter'; passkey: PasskeyRecord; counter: number };

/** A credential as sent: an object with a string `id` and a `response` object; anything else is malformed. */
function credentialShape(value: unknown): { id: string; response: Record<string, unknown> } | null {
  if (typeof value !== 'object' || value === null) return null;
  const { id, response } = value as { id?: unknown; response?: unknown };
  if (typeof id !== 'string' || id.length === 0 || id.length > CREDENTIAL_ID_MAX_LENGTH) return null;
  if (typeof response !== 'object' || response === null) return null;
  if (typeof (response as { clientDataJSON?: unknown }).clientDataJSON !== 'string') return null;
  return { id, response: response as Record<string, unknown> };
}

/** The challenge the client data of a response carries, or `null`. */
function challengeOf(response: Record<string, unknown>): string | null {
  try {
    const challenge = decodeClientDataJSON(response.clientDataJSON as string).challenge;
    return typeof challenge === 'string' && challenge.length <= 256 ? challenge : null;
  } catch {
    return null;
  }
}

const challengeHash = (challenge: string) => createHash('sha256').update(challenge, 'utf8').digest('hex');

/** What the ceremonies are built on. */
interface CeremonyDeps {
  passkeys: () => PasskeyStore;
  clock: Clock;
  random: RandomBytes;
  relyingParty: RelyingParty | undefined;
}

/** The relying party, or `invalid_configuration` when passkeys are off. */
const relyingPartyOf = (deps: CeremonyDeps) => (): RelyingParty => {
  if (!deps.relyingParty)
    throw configurationError('createTenantAuth', 'webauthn', 'is not set: passkeys are off');
  return deps.relyingParty;
};

/** Challenges: made random and stored as their hash, used up at most once, for one purpose and user. */
function challengesOf(deps: CeremonyDeps) {
  const { clock, random } = deps;
  return {
    async newChallenge(
      purpose: WebAuthnChallengePurpose,
      user: Pick<UserRecord, 'tenantId' | 'id'> | null,
    ): Promise<Uint8Array<ArrayBuffer>> {
      const bytes = new Uint8Array(random(32));
      const now = clock.now();
      await deps.passkeys().createChallenge({
        challengeHash: challengeHash(isoBase64URL.fromBuffer(bytes)),
        purpose,
        tenantId: user?.tenantId ?? null,
        userId: user?.id ?? null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000),
      });
      return bytes;
    },
    /** Uses up the challenge of `response` if it is one of `purpose` for `user` (none for a login). */
    async useChallenge(
      response: Record<string, unknown>,
      purpose: WebAuthnChallengePurpose,
      user: Pick<UserRecord, 'tenantId' | 'id'> | null,
    ): Promise<string | null> {
      const challenge = challengeOf(response);
      if (challenge === null) return null;
      const stored = await deps.passkeys().consumeChallenge(challengeHash(challenge), clock.now());
      if (stored?.purpose !== purpose) return null;
      if (stored.tenantId !== (user?.tenantId ?? null) || stored.userId !== (user?.id ?? null)) return null;
      return challenge;
    },
  };
}

/** The options of the ceremonies, each with a fresh challenge. */
function ceremonyOptions(deps: CeremonyDeps) {
  const rp = relyingPartyOf(deps);
  const { newChallenge } = challengesOf(deps);
  return {
    /** Creation options for `user`, excluding its passkeys; a discoverable credential with user verification. */
    async creationOptions(
      user: UserRecord,
      existing: PasskeyRecord[],
    ): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const { id, name } = rp();
      return generateRegistrationOptions({
        rpName: name,
        rpID: id,
        userName: user.email,
        userDisplayName: user.email,
        userID: userHandleOf(user.id),
        challenge: await newChallenge('registration', user),
        timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({
          id: p.credentialId,
          transports: p.transports as AuthenticatorTransportFuture[],
        })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
    },

    /** Request options: for `user`'s passkeys, or (login, no user) for any discoverable credential. */
    async requestOptions(
      purpose: Exclude<WebAuthnChallengePurpose, 'registration'>,
      user: UserRecord | null,
      passkeys: PasskeyRecord[] = [],
    ): Promise<PublicKeyCredentialRequestOptionsJSON> {
      return generateAuthenticationOptions({
        rpID: rp().id,
        challenge: await newChallenge(purpose, user),
        timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
        userVerification: 'required',
        ...(user
          ? {
              allowCredentials: passkeys.map((p) => ({
                id: p.credentialId,
                transports: p.transports as AuthenticatorTransportFuture[],
              })),
            }
          : {}),
      });
    },
  };
}

/** The checks of the ceremonies' responses; each uses its challenge up first. */
function ceremonyChecks(deps: CeremonyDeps) {
  const rp = relyingPartyOf(deps);
  const { useChallenge } = challengesOf(deps);
  return {
    /** The new credential of a registration response of `user`, or `null` when the response does not hold. */
    async verifyRegistration(
      user: UserRecord,
      credential: unknown,
    ): Promise<Pick<PasskeyRecord, 'credentialId' | 'publicKey' | 'counter' | 'transports'> | null> {
      const { id, origins } = rp();
      const shape = credentialShape(credential);
      if (!shape) return null;
      const challenge = await useChallenge(shape.response, 'registration', user);
      if (challenge === null) return null;
      try {
        const verified = await verifyRegistrationResponse({
          response: credential as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origins,
          expectedRPID: id,
          requireUserVerification: true,
        });
        if (!verified.verified) return null;
        const made = verified.registrationInfo.credential;
        return {
          credentialId: made.id,
          publicKey: isoBase64URL.fromBuffer(made.publicKey),
          counter: made.counter,
          transports: (made.transports ?? []).filter((t) => /^[a-z-]{1,32}$/.test(t)).slice(0, 8),
        };
      } catch {
        return null;
      }
    },

    /**
     * Checks an assertion made for `purpose`, by one of `user`'s passkeys (any user's for a login). Uses up
     * its challenge first.
     */
    async verifyAssertion(
      purpose: Exclude<WebAuthnChallengePurpose, 'registration'>,
      credential: unknown,
      user: Pick<UserRecord, 'tenantId' | 'id'> | null,
    ): Promise<AssertionCheck> {
      const { id, origins } = rp();
      const shape = credentialShape(credential);
      if (!shape) return { ok: false, reason: 'malformed' };
      if ((await useChallenge(shape.response, purpose, user)) === null)
        return { ok: false, reason: 'challenge' };
      const challenge = challengeOf(shape.response) as string;
      const passkey = await deps.passkeys().findByCredentialId(shape.id);
      if (!passkey || (user && (passkey.tenantId !== user.tenantId || passkey.userId !== user.id)))
        return { ok: false, reason: 'unknown' };
      const handle = shape.response.userHandle;
      if (handle != null && handle !== isoBase64URL.fromBuffer(userHandleOf(passkey.userId)))
        return { ok: false, reason: 'unknown' };
      let counter: number;
      try {
        const verified = await verifyAuthenticationResponse({
          response: credential as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origins,
          expectedRPID: id,
          // The counter rule is ours (below), so that a regression can be told apart and audited.
          credential: {
            id: passkey.credentialId,
            publicKey: isoBase64URL.toBuffer(passkey.publicKey),
            counter: 0,
          },
          requireUserVerification: true,
        });
        if (!verified.verified) return { ok: false, reason: 'signature' };
        counter = verified.authenticationInfo.newCounter;
      } catch {
        return { ok: false, reason: 'signature' };
      }
      if ((counter > 0 || passkey.counter > 0) && counter <= passkey.counter)
        return { ok: false, reason: 'counter', passkey, counter };
      return { ok: true, passkey, counter };
    },
  };
}

/**
 * @internal The WebAuthn ceremonies of the relying party, through `@simplewebauthn/server`: options with
 * a fresh challenge (random, stored as its hash, 5 minutes), and the checks of a registration or an
 * assertion, which use the challenge up first (once, whatever the outcome). User verification is required
 * both ways. The signature counter rule is applied here, after the signature holds: a counter that does
 * not go up (when either is not 0) is refused.
 */
export function createPasskeyCeremonies(deps: CeremonyDeps) {
  return { ...ceremonyOptions(deps), ...ceremonyChecks(deps) };
}

/** @internal */
export type PasskeyCeremonies = ReturnType<typeof createPasskeyCeremonies>;

/**
 * @internal What to do after a check: a counter that went backwards is written to the audit log
 * (`passkey_counter_regressed`, with the passkey's user as subject) before the caller refuses it.
 */
export async function auditCounterRegression(
  events: EventLog,
  check: AssertionCheck,
  context: RequestContext,
  sessionId: string | null = null,
): Promise<void> {
  if (check.ok || check.reason !== 'counter') return;
  const { tenantId, userId } = check.passkey;
  const parties = { tenantId, actorId: null, subjectId: userId, sessionId };
  await events.record({ type: 'passkey_counter_regressed', ...events.base(parties, context) });
}

/**
 * @internal What a sign-in with a verified passkey writes, inside its caller's transaction: the
 * counter's compare-and-set, the new session and `login_succeeded`. `false` (nothing written by this
 * call) when a concurrent use of the same passkey won the counter.
 */
export async function recordPasskeySignIn(
  tx: CompleteTransactionStores,
  record: (event: AuthEvent) => Promise<void>,
  events: EventLog,
  input: {
    user: UserRecord;
    check: Extract<AssertionCheck, { ok: true }>;
    session: SessionRecord;
    at: Date;
    context: RequestContext;
  },
): Promise<boolean> {
  const { user, check, session, at, context } = input;
  const use = { expectedCounter: check.passkey.counter, counter: check.counter, at };
  if (!(await tx.passkeys.recordUse(user.tenantId, check.passkey.id, use))) return false;
  await tx.sessions.create(session);
  const parties = { tenantId: user.tenantId, actorId: user.id, subjectId: user.id, sessionId: session.id };
  await record({ type: 'login_succeeded', ...events.base(parties, context) });
  return true;
}
