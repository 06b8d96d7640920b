import type { AuthMethod } from '../vocabulary/auth-methods.js';
import type {
  AuditEventRecord,
  AuditEventType,
  OneTimeTokenKind,
  OneTimeTokenRecord,
  OutboxMessageRecord,
  SessionRecord,
  TenantRecord,
  UserRecord,
} from '../vocabulary/records.js';
import type { Role } from '../vocabulary/roles.js';
import type { ApiKeyStore } from './api-key-store.js';
import type { FactorStore } from './factor-store.js';
import type { PasskeyStore } from './passkey-store.js';
import type { ScimStore } from './scim-store.js';
import type { SealedValuePage } from './sealed-value-page.js';
import type { SsoStore } from './sso-store.js';
import type { WebhookStore } from './webhook-store.js';

/**
 * Tenants. Every id a method takes comes from verified token claims or from core, never raw from a
 * request.
 *
 * @example
 * const tenant = await stores.tenants.findById(claims.tenantId);
 */
export interface TenantStore {
  /**
   * Inserts a tenant. Throws `TenantAuthError` with code `slug_taken` when the slug exists,
   * `unavailable` when the storage does not answer.
   */
  create(tenant: TenantRecord): Promise<void>;
  findById(tenantId: string): Promise<TenantRecord | null>;
  /**
   * Locks the tenant until the transaction ends (PostgreSQL: `SELECT ... FOR UPDATE`), so that changes
   * to its membership run one after another: two owners demoting each other at once cannot both leave
   * the tenant an owner short. Only meaningful inside {@link TenantAuthStores.transaction}. Returns
   * whether the tenant exists.
   */
  lock(tenantId: string): Promise<boolean>;
  /**
   * Deletes a tenant with everything that belongs to it: users, sessions, one-time tokens, second
   * factors, audit events, its domains, its SSO connection and identities, its SCIM token, profiles and
   * groups. Returns whether a tenant was deleted.
   */
  delete(tenantId: string): Promise<boolean>;
  /**
   * Sets whether the tenant requires a second factor. Returns whether a tenant was changed. Optional (new
   * in 1.2): without it, setting the policy answers `feature_unavailable`.
   */
  setRequireMfa?(tenantId: string, requireMfa: boolean): Promise<boolean>;
}

/**
 * Users. Emails come normalised (core applies one rule, `normalizeEmail`: ASCII case only) and are
 * stored and compared as given: a store must not fold them again. A user belongs to one tenant, and
 * every lookup by id is scoped to that tenant.
 *
 * @example
 * const user = await stores.users.findByEmail('ada@example.com');
 */
export interface UserStore {
  /**
   * Inserts a user. Throws `TenantAuthError` with code `email_taken` when the normalised email exists in
   * any tenant.
   */
  create(user: UserRecord): Promise<void>;
  /** Looks a user up by normalised email, across tenants (login knows no tenant yet). */
  findByEmail(email: string): Promise<UserRecord | null>;
  findById(tenantId: string, userId: string): Promise<UserRecord | null>;
  /** Replaces the password hash of a user of that tenant. Returns whether a user was changed. */
  setPasswordHash(tenantId: string, userId: string, passwordHash: string): Promise<boolean>;
  /** The users of a tenant, oldest first (ties by id); the first `limit` only when given. */
  listByTenant(tenantId: string, options?: { limit?: number }): Promise<UserRecord[]>;
  /** How many users of the tenant have that role. */
  countByRole(tenantId: string, role: Role): Promise<number>;
  /** Sets the role of a user of that tenant. Returns whether a user was changed. */
  setRole(tenantId: string, userId: string, role: Role): Promise<boolean>;
  /** Marks the email of a user of that tenant verified. Returns whether a user was changed. */
  markEmailVerified(tenantId: string, userId: string): Promise<boolean>;
  /**
   * Replaces the email of a user of that tenant with a new, verified one. Throws `TenantAuthError` with
   * code `email_taken` when another user has it. Returns whether a user was changed.
   */
  changeEmail(tenantId: string, userId: string, email: string): Promise<boolean>;
  /**
   * Deletes a user of that tenant with its sessions, its second factors and challenges, its SSO
   * identities, its SCIM profile and group memberships, and the one-time tokens issued for it. Returns whether a user was deleted.
   */
  delete(tenantId: string, userId: string): Promise<boolean>;
  /**
   * Sets whether a user of that tenant is active (`UserRecord.active`); the user's other fields stay as
   * they are. Returns whether a user of that tenant exists. Optional (new in 1.3): without it,
   * deactivating a user answers `feature_unavailable`.
   *
   * @example
   * await tx.users.setActive?.(tenantId, userId, false);
   */
  setActive?(tenantId: string, userId: string, active: boolean): Promise<boolean>;
  /**
   * How many **active** users of the tenant have that role (a user without `active` counts as active).
   * Optional (new in 1.3): without it core counts with {@link UserStore.countByRole}, which is the same
   * number for a store that cannot deactivate anyone.
   *
   * @example
   * const owners = await tx.users.countActiveByRole?.(tenantId, 'owner');
   */
  countActiveByRole?(tenantId: string, role: Role): Promise<number>;
}

/**
 * The fields of a session that change when its refresh token rotates.
 *
 * @example
 * const next: SessionRotation = { refreshHash, refreshJti, refreshIssuedAt, refreshExpiresAt, expiresAt, lastUsedAt: now, rotatedAt: now };
 */
export interface SessionRotation {
  refreshHash: string;
  refreshJti: string;
  refreshIssuedAt: Date;
  refreshExpiresAt: Date;
  expiresAt: Date;
  lastUsedAt: Date;
  rotatedAt: Date;
}

/**
 * A session with the user it belongs to, read together: what a refresh needs, ideally in one round trip.
 * `user` is what `users.findById(session.tenantId, session.userId)` returns at that moment: `null` when no
 * user of the session's tenant has that id.
 *
 * @example
 * const found: SessionWithUser | null = await stores.sessions.findByRefreshHash(tenantId, hash);
 * if (found?.user) console.log(found.session.id, found.user.role);
 */
export interface SessionWithUser {
  session: SessionRecord;
  user: UserRecord | null;
}

/**
 * Sessions. Every method is scoped to a tenant: a session of another tenant is never returned, changed
 * or counted.
 *
 * @example
 * const won = await stores.sessions.rotate(tenantId, sessionId, presentedHash, next);
 */
export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  findById(tenantId: string, sessionId: string): Promise<SessionRecord | null>;
  /**
   * Finds the session whose current **or previous** refresh hash equals `refreshHash`, with its user as
   * `users.findById(tenantId, session.userId)` would return it now (a user of another tenant is `null`),
   * in one read where the storage allows it (PostgreSQL: one statement). Revoked and expired sessions are
   * returned too; the caller decides.
   */
  findByRefreshHash(tenantId: string, refreshHash: string): Promise<SessionWithUser | null>;
  /**
   * Compare-and-set: rotates only if the session is not revoked and its current refresh hash is still
   * `expectedRefreshHash`; the old current hash becomes the previous one. Returns whether this caller
   * won. Of any number of concurrent callers with the same expected hash, exactly one wins.
   *
   * `event`, when given, is appended to the audit log if and only if this rotation wins, atomically with
   * it (PostgreSQL: in the same statement). Refresh is the busiest write of all: its audit record must
   * not cost a transaction of its own. A bundle with `webhooks` also queues the event's deliveries in that
   * same atomic write, as `webhooks.queueDeliveries(event, webhookPayloadOf(event), ...)` would (ids:
   * `webhookDeliveryIdOf`, both from `tenant-auth-core/store-kit`); so do `rotateCurrent` and
   * `reauthenticate` with their `event`.
   */
  rotate(
    tenantId: string,
    sessionId: string,
    expectedRefreshHash: string,
    next: SessionRotation,
    event?: AuditEventRecord,
  ): Promise<boolean>;
  /**
   * Optional: the common refresh in one round trip. Rotates as {@link SessionStore.rotate} does (the
   * current hash must still be `expected.refreshHash`, the session not revoked; one winner; `event`
   * appended if and only if it rotates) and only when also: the session is `expected.sessionId` of
   * `expected.userId`, it expires after `expected.activeAt`, its absolute expiry is not before
   * `next.expiresAt`, and its user exists in its tenant. Returns the session as rotated, with its user as
   * `users.findById` reads it; `null` when any condition fails, and then nothing changed (the caller reads
   * the session to learn why). A store without it is used through `findByRefreshHash`, then `rotate`.
   *
   * @example
   * const rotated = await stores.sessions.rotateCurrent?.(tenantId, { sessionId, userId, refreshHash, activeAt: now }, next);
   * if (rotated) console.log(rotated.user.role, rotated.session.refreshHash === next.refreshHash);
   */
  rotateCurrent?(
    tenantId: string,
    expected: { sessionId: string; userId: string; refreshHash: string; activeAt: Date },
    next: SessionRotation,
    event?: AuditEventRecord,
  ): Promise<{ session: SessionRecord; user: UserRecord } | null>;
  /**
   * Revokes one session if it is active and (when `userId` is given) belongs to that user.
   * Returns whether a session was revoked by this call.
   */
  revoke(tenantId: string, sessionId: string, at: Date, options?: { userId?: string }): Promise<boolean>;
  /** Revokes every non-revoked session of a user, optionally but one. Returns how many it revoked. */
  revokeAllForUser(
    tenantId: string,
    userId: string,
    at: Date,
    options?: { exceptSessionId?: string },
  ): Promise<number>;
  /**
   * A reauthentication: rotates an active session (not revoked, not expired at `next.lastUsedAt`) of
   * `userId` to a new refresh token (the current one becomes the previous one) and sets how and when the
   * user proved who they are, in one atomic write, with `event` (and its webhook deliveries, as for
   * {@link SessionStore.rotate}) if and only if it happens. Returns the
   * session as written; `null` when no such active session exists, and then nothing changed. Optional (new
   * in 1.2): without it, a reauthentication answers `feature_unavailable`.
   */
  reauthenticate?(
    tenantId: string,
    sessionId: string,
    userId: string,
    next: SessionRotation & { amr: AuthMethod[]; authTime: Date },
    event?: AuditEventRecord,
  ): Promise<SessionRecord | null>;
  /**
   * Revokes every non-revoked session of the tenant whose `amr` has neither `mfa` nor `sso` (a tenant
   * turning its second-factor requirement on). Returns how many it revoked. Optional (new in 1.2): without
   * it, turning the requirement on answers `feature_unavailable`.
   */
  revokeWithoutStrongAuth?(tenantId: string, at: Date): Promise<number>;
  /**
   * Single sign-on's hold (`enforce` turned on, or a domain verified while it is on): revokes every
   * session of the tenant that is neither revoked nor expired at `at` and whose `amr` has no `sso`, of
   * the users who are not owners and whose address's domain (after the last `@`; printable ASCII
   * addresses only) is one of `domains`. Returns how many it revoked. Optional: without it core lists the
   * tenant's users and revokes their sessions one by one; a store should do it in one statement (or in
   * bounded batches), so a large tenant is not read into memory under the tenant's lock.
   */
  revokeHeldBySso?(tenantId: string, domains: readonly string[], at: Date): Promise<number>;
  /** Sessions of a user that are neither revoked nor expired at `now`, newest first; the first `limit` only when given. */
  listActiveForUser(
    tenantId: string,
    userId: string,
    now: Date,
    options?: { limit?: number },
  ): Promise<SessionRecord[]>;
  /**
   * Deletes at most `batchSize` sessions that expired before `expiredBefore` or were revoked before
   * `revokedBefore`, oldest first, across all tenants. Returns how many it deleted; the caller repeats
   * while a full batch comes back.
   */
  deleteExpired(options: { expiredBefore: Date; revokedBefore: Date; batchSize: number }): Promise<number>;
}

/**
 * One-time tokens of every kind (invitation, password reset, email verification, email change), stored
 * by the SHA-256 of the token. Every method is scoped: by the token's hash (which names one tenant's
 * token) or by tenant.
 *
 * @example
 * const token = await tx.oneTimeTokens.consume('password_reset', sha256(presented), now);
 */
export interface OneTimeTokenStore {
  /**
   * Stores a token and deletes the older tokens of its kind for the same subject: for an invitation,
   * the same tenant and email; for the other kinds, the same tenant, user and kind.
   */
  issue(token: OneTimeTokenRecord): Promise<void>;
  /** The token of that kind with that hash, if it has not expired at `now`. Does not consume it. */
  find(kind: OneTimeTokenKind, tokenHash: string, now: Date): Promise<OneTimeTokenRecord | null>;
  /**
   * Consumes a token atomically: deletes it and returns it if it exists and has not expired at `now`.
   * Of any number of concurrent callers with the same hash, at most one gets the token.
   */
  consume(kind: OneTimeTokenKind, tokenHash: string, now: Date): Promise<OneTimeTokenRecord | null>;
  /**
   * The unexpired tokens of a kind in a tenant, newest first (ties by id): pending invitations. The first
   * `limit` only when given.
   */
  listPending(
    tenantId: string,
    kind: OneTimeTokenKind,
    now: Date,
    options?: { limit?: number },
  ): Promise<OneTimeTokenRecord[]>;
  /** Deletes one token of the tenant by id and kind. Returns whether it existed (expired or not). */
  revoke(tenantId: string, kind: OneTimeTokenKind, id: string): Promise<boolean>;
  /** Deletes the tokens of a kind issued for a user. Returns how many. */
  revokeForUser(tenantId: string, userId: string, kind: OneTimeTokenKind): Promise<number>;
  /**
   * Deletes at most `batchSize` tokens that expired before `expiredBefore`, across tenants. Returns how
   * many; the caller repeats while a full batch comes back.
   */
  deleteExpired(options: { expiredBefore: Date; batchSize: number }): Promise<number>;
}

/**
 * Counts of the outbox, for metrics and alerts.
 *
 * @example
 * const { pending, dead }: OutboxCounts = await stores.outbox.counts();
 */
export interface OutboxCounts {
  /** Messages still to be delivered (due or not, claimed or not). */
  pending: number;
  /** Messages given up on and not yet cleaned up. */
  dead: number;
  /** When the oldest pending message was written; `null` when none is pending. */
  oldestPendingAt: Date | null;
}

/**
 * The mail outbox: messages written in the same transaction as the change they announce, delivered
 * afterwards by whichever instance claims them. Not tenant-scoped: delivery serves every tenant.
 *
 * @example
 * for (const message of await stores.outbox.claim({ now, limit: 20, leaseSeconds: 60 })) {
 *   await send(message);
 *   await stores.outbox.complete(message.id);
 * }
 */
export interface OutboxStore {
  /** Writes a message (attempts 0, not locked, not dead). */
  enqueue(message: OutboxMessageRecord): Promise<void>;
  /**
   * Claims at most `limit` messages that are due (`nextAttemptAt <= now`), not dead and not locked by
   * another claim (`lockedUntil` null or past), oldest due first: sets `lockedUntil` to `now` plus the
   * lease and counts one attempt, and returns them as updated. Two concurrent claims never return the
   * same message (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claim(options: { now: Date; limit: number; leaseSeconds: number }): Promise<OutboxMessageRecord[]>;
  /** Deletes a delivered message. Returns whether it existed. */
  complete(id: string): Promise<boolean>;
  /**
   * Releases a message whose delivery failed, to be tried again at `nextAttemptAt`. Returns whether a
   * message that is not dead was changed.
   */
  retry(id: string, options: { nextAttemptAt: Date; error: string }): Promise<boolean>;
  /**
   * Gives a message up: marks it dead (never claimed again) and empties its payload. Returns whether a
   * message that was not dead yet was changed.
   */
  bury(id: string, options: { at: Date; error: string }): Promise<boolean>;
  counts(): Promise<OutboxCounts>;
  /** Deletes at most `batchSize` dead messages buried before `deadBefore`. Returns how many. */
  deleteDead(options: { deadBefore: Date; batchSize: number }): Promise<number>;
  /**
   * Optional (the re-seal after a data-key rotation needs it): the messages that still hold a payload
   * (not dead), by id (the page's key), with what the payload is bound to.
   *
   * @example
   * const page = await stores.outbox.listSealedPayloads?.({ after: null, limit: 500 });
   */
  listSealedPayloads?(
    page: SealedValuePage,
  ): Promise<Pick<OutboxMessageRecord, 'id' | 'template' | 'to' | 'payload'>[]>;
  /**
   * Optional, with {@link OutboxStore.listSealedPayloads}: replaces the message's payload with `payload`
   * only if it is still `expected` (compare-and-set: a message delivered or buried meanwhile is left
   * alone), changing nothing else. Returns whether it did.
   *
   * @example
   * await stores.outbox.resealPayload?.(id, old, resealed);
   */
  resealPayload?(id: string, expected: string, payload: string): Promise<boolean>;
}

/**
 * Which audit events of a tenant to list.
 *
 * @example
 * const query: AuditEventQuery = { limit: 50, type: 'login_failed' };
 */
export interface AuditEventQuery {
  /** At most this many events (a positive integer). */
  limit: number;
  /** Only events older than the one with this id (the id of the last event of the previous page). */
  before?: string | undefined;
  type?: AuditEventType | undefined;
  /** Only events in which this user acted or was acted upon (`actorId` or `subjectId`). */
  userId?: string | undefined;
}

/**
 * The audit log: security events per tenant, newest first. Ids are UUIDv7 and the order is by id, so a
 * page that starts after a given id is stable while new events arrive (no duplicates, no gaps).
 *
 * @example
 * const page = await stores.auditEvents.list(tenantId, { limit: 50, before: lastId });
 */
export interface AuditEventStore {
  append(event: AuditEventRecord): Promise<void>;
  /** Events of the tenant matching the query, newest (largest id) first. */
  list(tenantId: string, query: AuditEventQuery): Promise<AuditEventRecord[]>;
  /**
   * Deletes at most `batchSize` events older than `before`, across tenants. Returns how many; the
   * caller repeats while a full batch comes back.
   */
  deleteOlderThan(options: { before: Date; batchSize: number }): Promise<number>;
}

/**
 * The stores of one transaction: the same interfaces, bound to it.
 *
 * The stores of 1.2's features (`factors`, `passkeys`, `sso`, `apiKeys`) are optional, so a bundle written
 * for 1.1 still compiles and runs: without one, its feature answers `feature_unavailable` (HTTP 501), and
 * sign-in reads it as empty (a user has no second factor without a factor store).
 *
 * @example
 * await stores.transaction(async (tx: TransactionStores) => {
 *   await tx.tenants.create(tenant);
 *   await tx.users.create(owner);
 * });
 */
export interface TransactionStores {
  readonly tenants: TenantStore;
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly oneTimeTokens: OneTimeTokenStore;
  readonly outbox: OutboxStore;
  readonly auditEvents: AuditEventStore;
  readonly factors?: FactorStore;
  readonly passkeys?: PasskeyStore;
  readonly sso?: SsoStore;
  readonly apiKeys?: ApiKeyStore;
  /** Webhook endpoints and deliveries (1.3). */
  readonly webhooks?: WebhookStore;
  /** SCIM provisioning: the tenant's token, group-to-role mapping, directory profiles and groups (1.3). */
  readonly scim?: ScimStore;
}

/**
 * Everything tenant-auth keeps, as one bundle: what `createTenantAuth({ stores })` takes and what a
 * storage adapter provides (`createMemoryStores()`, tenant-auth-mikro-orm's `createMikroOrmStores(orm)`).
 * Every implementation runs the conformance suite of `tenant-auth-core/testing`.
 *
 * @example
 * const auth = createTenantAuth({ stores: createMemoryStores(), accessToken: { secret }, refreshSecret });
 */
export interface TenantAuthStores extends TransactionStores {
  /**
   * Runs `fn` in one transaction: every write made through the stores it is given commits together, or
   * none does when `fn` throws (the error is rethrown). Inside `fn`, use only those stores. Transactions
   * do not nest.
   */
  transaction<T>(fn: (stores: TransactionStores) => Promise<T>): Promise<T>;
}

/**
 * The stores of one transaction with every store and store method of 1.2 present: what the use cases
 * work with (`createTenantAuth` completes a bundle that leaves some out with stand-ins), and what a full
 * storage adapter provides.
 *
 * @example
 * await stores.transaction(async (tx: CompleteTransactionStores) => {
 *   await tx.factors.deleteTotp(tenantId, userId);
 * });
 */
export interface CompleteTransactionStores extends TransactionStores {
  readonly tenants: TenantStore & Required<Pick<TenantStore, 'setRequireMfa'>>;
  readonly sessions: SessionStore &
    Required<Pick<SessionStore, 'reauthenticate' | 'revokeWithoutStrongAuth'>>;
  readonly factors: FactorStore;
  readonly passkeys: PasskeyStore;
  readonly sso: SsoStore;
  readonly apiKeys: ApiKeyStore;
  readonly webhooks: WebhookStore;
  readonly scim: ScimStore;
}

/**
 * A {@link TenantAuthStores} bundle with every store and store method of 1.2: what `createMemoryStores()`
 * and tenant-auth-mikro-orm's `createMikroOrmStores(orm)` return.
 *
 * @example
 * const stores: CompleteTenantAuthStores = createMemoryStores();
 * const factor = await stores.factors.findTotp(tenantId, userId);
 */
export interface CompleteTenantAuthStores extends CompleteTransactionStores {
  transaction<T>(fn: (stores: CompleteTransactionStores) => Promise<T>): Promise<T>;
}
