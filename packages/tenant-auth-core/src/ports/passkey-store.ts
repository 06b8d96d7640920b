/**
 * A passkey (a WebAuthn credential) of a user, as stored. Nothing in it is secret: the public key and
 * the credential id are what the authenticator shows to every relying party it is used with.
 *
 * @example
 * const passkey: PasskeyRecord | null = await stores.passkeys.findByCredentialId(credentialId);
 */
export interface PasskeyRecord {
  /** Our id (UUIDv7): what `DELETE /auth/passkeys/:id` names. */
  id: string;
  tenantId: string;
  userId: string;
  /** The credential id the authenticator chose (base64url); unique across every tenant. */
  credentialId: string;
  /** The COSE public key (base64url). */
  publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  /** How the authenticator can be reached (`internal`, `hybrid`, `usb`, …), as it said. */
  transports: string[];
  /** A name the user gave it. */
  name: string;
  createdAt: Date;
  /** When it last signed a user in; `null` when never. */
  lastUsedAt: Date | null;
}

/**
 * What a WebAuthn challenge is for: registering a passkey, a passkey login (no user yet), the second
 * factor of a login, or a re-authentication.
 *
 * @example
 * const purpose: WebAuthnChallengePurpose = 'login';
 */
export type WebAuthnChallengePurpose = 'registration' | 'login' | 'mfa' | 'reauthentication';

/**
 * A WebAuthn challenge as stored: only the SHA-256 of the challenge (32 random bytes), what it is for,
 * and whose it is (none for a passkey login, which knows no user yet). Single use, 5 minutes.
 *
 * @example
 * const challenge = await stores.passkeys.consumeChallenge(sha256(challengeFromClientData), now);
 */
export interface WebAuthnChallengeRecord {
  /** SHA-256 (hex) of the challenge (base64url) as the client data carries it. */
  challengeHash: string;
  purpose: WebAuthnChallengePurpose;
  /** `null` for a passkey login. */
  tenantId: string | null;
  /** `null` for a passkey login. */
  userId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Passkeys and their WebAuthn challenges. Every method that takes a tenant is scoped to it: another
 * tenant's passkeys are never returned, changed or counted. `add` has one winner among concurrent
 * registrations of one credential id, `recordUse` one winner among concurrent uses of one counter value,
 * `consumeChallenge` one winner among concurrent consumers.
 *
 * @example
 * if (await stores.passkeys.recordUse(tenantId, passkey.id, { expectedCounter: 4, counter: 5, at: now })) signIn();
 */
export interface PasskeyStore {
  /**
   * Stores a passkey. Returns `false` (and stores nothing) when a passkey with that credential id exists
   * (in any tenant), or when the user is not a user of that tenant.
   */
  add(passkey: PasskeyRecord): Promise<boolean>;
  /** The passkey with that credential id, in whichever tenant (a passkey login knows no tenant yet). */
  findByCredentialId(credentialId: string): Promise<PasskeyRecord | null>;
  /** The passkeys of a user, oldest first (ties by id). */
  listForUser(tenantId: string, userId: string): Promise<PasskeyRecord[]>;
  countForUser(tenantId: string, userId: string): Promise<number>;
  /**
   * Compare-and-set: sets the counter and `lastUsedAt` of the passkey only if its counter is still
   * `expectedCounter`. Returns whether this call did.
   */
  recordUse(
    tenantId: string,
    id: string,
    use: { expectedCounter: number; counter: number; at: Date },
  ): Promise<boolean>;
  /** Deletes a passkey of that user. Returns whether there was one. */
  delete(tenantId: string, userId: string, id: string): Promise<boolean>;
  /** Stores a challenge. */
  createChallenge(challenge: WebAuthnChallengeRecord): Promise<void>;
  /**
   * Consumes a challenge atomically: deletes it and returns it if it exists and has not expired at `now`.
   * Of concurrent callers, at most one gets it.
   */
  consumeChallenge(challengeHash: string, now: Date): Promise<WebAuthnChallengeRecord | null>;
  /** Deletes at most `batchSize` challenges that expired before `expiredBefore`. Returns how many. */
  deleteExpiredChallenges(options: { expiredBefore: Date; batchSize: number }): Promise<number>;
}
