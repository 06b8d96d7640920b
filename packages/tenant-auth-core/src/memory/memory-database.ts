import { AsyncLocalStorage } from 'node:async_hooks';
import type { ApiKeyRecord } from '../ports/api-key-store.js';
import type { FactorLockState, MfaChallengeRecord, TotpFactorRecord } from '../ports/factor-store.js';
import type { PasskeyRecord, WebAuthnChallengeRecord } from '../ports/passkey-store.js';
import type { ScimGroupRecord, ScimProfileRecord, ScimTokenRecord } from '../ports/scim-store.js';
import type { DomainRecord, SsoConnectionRecord, SsoIdentityRecord } from '../ports/sso-store.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../ports/webhook-store.js';
import type {
  AuditEventRecord,
  OneTimeTokenRecord,
  OutboxMessageRecord,
  SessionRecord,
  TenantRecord,
  UserRecord,
} from '../vocabulary/records.js';
import type { ScimGroupRole } from '../vocabulary/scim.js';

/** @internal A stored TOTP factor, with its owner. */
export type MemoryTotpFactor = TotpFactorRecord & { tenantId: string; userId: string };
/** @internal A stored recovery code, keyed `userId|hash`. */
export interface MemoryRecoveryCode {
  tenantId: string;
  userId: string;
  hash: string;
  createdAt: Date;
}

/** @internal A stored webhook delivery, with its claim. */
export type MemoryWebhookDelivery = WebhookDeliveryRecord & { lockedUntil: Date | null };

/** @internal A stored membership of a SCIM group. */
export interface MemoryScimMember {
  tenantId: string;
  groupId: string;
  userId: string;
}

/** @internal Everything the memory stores hold. */
export interface MemoryState {
  tenants: Map<string, TenantRecord>;
  tenantIdBySlug: Map<string, string>;
  users: Map<string, UserRecord>;
  userIdByEmail: Map<string, string>;
  sessions: Map<string, SessionRecord>;
  /** Current and previous refresh hashes to session ids. */
  sessionIdByRefreshHash: Map<string, string>;
  oneTimeTokens: Map<string, OneTimeTokenRecord>;
  oneTimeTokenIdByHash: Map<string, string>;
  outbox: Map<string, OutboxMessageRecord>;
  auditEvents: Map<string, AuditEventRecord>;
  /** By user id. */
  totpFactors: Map<string, MemoryTotpFactor>;
  recoveryCodes: Map<string, MemoryRecoveryCode>;
  /** The second-factor lock of each user, by user id. */
  factorLocks: Map<string, FactorLockState>;
  /** By token hash. */
  mfaChallenges: Map<string, MfaChallengeRecord>;
  /** By id. */
  passkeys: Map<string, PasskeyRecord>;
  /** By challenge hash. */
  webauthnChallenges: Map<string, WebAuthnChallengeRecord>;
  /** By `tenantId|name`. */
  domains: Map<string, DomainRecord>;
  /** By tenant id. */
  ssoConnections: Map<string, SsoConnectionRecord>;
  /** By `tenantId|issuer|subject`. */
  ssoIdentities: Map<string, SsoIdentityRecord>;
  /** The expiry of each mark of `sso.useOnce`, by `tenantId|kind|idHash`. */
  ssoUsedOnce: Map<string, Date>;
  /** By key id. */
  apiKeys: Map<string, ApiKeyRecord>;
  /** Secret hashes to key ids. */
  apiKeyIdBySecretHash: Map<string, string>;
  /** By endpoint id. */
  webhookEndpoints: Map<string, WebhookEndpointRecord>;
  /** By delivery id. */
  webhookDeliveries: Map<string, MemoryWebhookDelivery>;
  /** By tenant id. */
  scimTokens: Map<string, ScimTokenRecord>;
  /** By tenant id. */
  scimGroupRoles: Map<string, ScimGroupRole[]>;
  /** By user id. */
  scimProfiles: Map<string, ScimProfileRecord>;
  /** By group id. */
  scimGroups: Map<string, ScimGroupRecord>;
  /** By `groupId|userId`. */
  scimMembers: Map<string, MemoryScimMember>;
}

const emptyState = (): MemoryState => ({
  tenants: new Map(),
  tenantIdBySlug: new Map(),
  users: new Map(),
  userIdByEmail: new Map(),
  sessions: new Map(),
  sessionIdByRefreshHash: new Map(),
  oneTimeTokens: new Map(),
  oneTimeTokenIdByHash: new Map(),
  outbox: new Map(),
  auditEvents: new Map(),
  totpFactors: new Map(),
  recoveryCodes: new Map(),
  factorLocks: new Map(),
  mfaChallenges: new Map(),
  passkeys: new Map(),
  webauthnChallenges: new Map(),
  domains: new Map(),
  ssoConnections: new Map(),
  ssoIdentities: new Map(),
  ssoUsedOnce: new Map(),
  apiKeys: new Map(),
  apiKeyIdBySecretHash: new Map(),
  webhookEndpoints: new Map(),
  webhookDeliveries: new Map(),
  scimTokens: new Map(),
  scimGroupRoles: new Map(),
  scimProfiles: new Map(),
  scimGroups: new Map(),
  scimMembers: new Map(),
});

/**
 * A snapshot to roll back to. Stored values are never changed in place (every write stores a new
 * object), so copying the maps is enough, and costs no more than the number of entries.
 */
const snapshotOf = (state: MemoryState): MemoryState =>
  Object.fromEntries(
    Object.entries(state).map(([key, map]) => [key, new Map(map as Map<string, unknown>)]),
  ) as unknown as MemoryState;

/**
 * @internal One in-memory "database": every operation runs alone (one async lock), and a transaction
 * holds the lock for its whole length and restores a snapshot when it fails. Stored values are never
 * changed in place: a write stores a new object. That gives the memory
 * stores a real database's guarantees (atomicity, serialisable transactions) for tests.
 */
export class MemoryDatabase {
  state: MemoryState = emptyState();
  #tail: Promise<unknown> = Promise.resolve();
  readonly #insideTransaction = new AsyncLocalStorage<true>();

  /** Runs `fn` alone. Called from inside a transaction's own function, it is a programming error. */
  exclusive<T>(fn: (state: MemoryState) => T | Promise<T>): Promise<T> {
    if (this.#insideTransaction.getStore()) {
      return Promise.reject(
        new TypeError('a store was called outside its transaction while that transaction was open'),
      );
    }
    const run = this.#tail.then(() => fn(this.state));
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Runs `fn` as one transaction: alone, and all-or-nothing. */
  transaction<T>(fn: (state: () => MemoryState) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const snapshot = snapshotOf(this.state);
      try {
        return await this.#insideTransaction.run(true, () => fn(() => this.state));
      } catch (err) {
        this.state = snapshot;
        throw err;
      }
    });
  }
}
