import { countActiveByRoleOf, revokeCreatedByOf, setActiveUnavailable } from '../mechanisms/deactivation.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { FactorStore } from '../ports/factor-store.js';
import type { PasskeyStore } from '../ports/passkey-store.js';
import type { ScimStore } from '../ports/scim-store.js';
import type { SsoStore } from '../ports/sso-store.js';
import type {
  CompleteTenantAuthStores,
  CompleteTransactionStores,
  TenantAuthStores,
  TransactionStores,
} from '../ports/tenant-auth-stores.js';
import type { WebhookStore } from '../ports/webhook-store.js';
import { TenantAuthError } from '../vocabulary/errors.js';

// The one rule for a bundle written before a store or method existed (a 1.1 store set): what it leaves out
// is a stand-in. The reads that sign-in, refresh, `getMe` and cleanup make answer "none" (a user has no
// second factor without a factor store, no verified domain holds anyone to SSO without an SSO store, there
// is nothing expired to delete); every other call answers `feature_unavailable` (HTTP 501). The use cases
// see complete stores and never check for one.

/** @internal The error of a feature whose store, or store method, the bundle leaves out. */
export function featureUnavailable(what: string): TenantAuthError {
  return new TenantAuthError(
    'feature_unavailable',
    `This server does not offer this feature: its storage has no ${what} (a store set of an earlier version).`,
  );
}

const unavailable = (what: string) => async (): Promise<never> => {
  throw featureUnavailable(what);
};
const none = async (): Promise<null> => null;
const zero = async (): Promise<number> => 0;

function standInFactors(): FactorStore {
  const no = unavailable('second factors (stores.factors)');
  return {
    saveTotpSetup: no,
    findTotp: none,
    confirmTotp: no,
    acceptTotpStep: no,
    deleteTotp: no,
    replaceRecoveryCodes: no,
    consumeRecoveryCode: no,
    countRecoveryCodes: zero,
    deleteRecoveryCodes: no,
    createChallenge: no,
    findChallenge: no,
    recordChallengeFailure: no,
    consumeChallenge: no,
    deleteExpiredChallenges: zero,
  };
}

function standInPasskeys(): PasskeyStore {
  const no = unavailable('passkeys (stores.passkeys)');
  return {
    add: no,
    findByCredentialId: no,
    listForUser: no,
    countForUser: zero,
    recordUse: no,
    delete: no,
    createChallenge: no,
    consumeChallenge: no,
    deleteExpiredChallenges: zero,
  };
}

function standInSso(): SsoStore {
  const no = unavailable('single sign-on (stores.sso)');
  return {
    addDomain: no,
    findDomain: none,
    listDomains: no,
    findVerifiedDomain: none,
    verifyDomain: no,
    deleteDomain: no,
    saveConnection: no,
    findConnection: none,
    deleteConnection: no,
    findIdentity: no,
    findIdentityOfUser: no,
    linkIdentity: no,
  };
}

function standInApiKeys(): ApiKeyStore & Required<Pick<ApiKeyStore, 'revokeCreatedBy'>> {
  const no = unavailable('API keys (stores.apiKeys)');
  return {
    create: no,
    // A presented key that cannot exist: the caller answers it `invalid_token`, as any unknown key.
    findBySecretHash: none,
    findById: no,
    listByTenant: no,
    revoke: no,
    // No key store, no key: a deactivated user has none to revoke.
    revokeCreatedBy: zero,
    touchLastUsed: no,
  };
}

function standInWebhooks(): WebhookStore {
  const no = unavailable('webhooks (stores.webhooks)');
  return {
    createEndpoint: no,
    findEndpoint: no,
    listEndpoints: no,
    updateEndpoint: no,
    disableEndpoint: no,
    deleteEndpoint: no,
    // No endpoint can subscribe: an event queues nothing, and there is nothing to deliver or clean up.
    queueDeliveries: zero,
    queueDelivery: no,
    claimDeliveries: async () => [],
    recordAttempt: none,
    listDeliveries: no,
    countPending: async () => ({ pending: 0, oldestPendingAt: null }),
    deleteDeliveriesOlderThan: zero,
    listSealedSecrets: async () => [],
    resealSecret: async () => false,
  };
}

function standInScim(): ScimStore {
  // Nothing of sign-in or cleanup reads it: every SCIM use case, token verification included, is the feature.
  const no = unavailable('SCIM provisioning (stores.scim)');
  return {
    saveToken: no,
    findToken: no,
    findTokenByHash: no,
    deleteToken: no,
    touchToken: no,
    getGroupRoles: no,
    setGroupRoles: no,
    saveProfile: no,
    findProfiles: no,
    findUserIdsByExternalId: no,
    listManagedUserIds: no,
    pageUsers: no,
    createGroup: no,
    findGroup: no,
    pageGroups: no,
    updateGroup: no,
    deleteGroup: no,
    setGroupMembers: no,
    listGroupMembers: no,
    groupsOfUsers: no,
  };
}

const STAND_INS = {
  factors: standInFactors(),
  passkeys: standInPasskeys(),
  sso: standInSso(),
  apiKeys: standInApiKeys(),
  webhooks: standInWebhooks(),
  scim: standInScim(),
};

/**
 * @internal The stores `stores` has as stand-ins (left out of the bundle), for the one warning at start-up:
 * their features answer `feature_unavailable`, and their reads answer "none", so a user whose factor or
 * passkey is in a store the bundle no longer passes signs in without it.
 */
export function standInStores(stores: CompleteTransactionStores): (keyof typeof STAND_INS)[] {
  return (Object.keys(STAND_INS) as (keyof typeof STAND_INS)[]).filter(
    (name) => stores[name] === STAND_INS[name],
  );
}

/**
 * `store` with `methods` added where it has none of its own; its own methods are called on it (bound), so
 * a class with private fields works as well as a plain object.
 */
function withMethods<S extends object, M extends object>(store: S, methods: M): S & Required<M> {
  const missing = Object.keys(methods).filter((name) => typeof Reflect.get(store, name) !== 'function');
  if (missing.length === 0) return store as S & Required<M>;
  return new Proxy(store, {
    get(target, key) {
      if (typeof key === 'string' && missing.includes(key)) return (methods as Record<string, unknown>)[key];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has: (target, key) => (typeof key === 'string' && missing.includes(key)) || Reflect.has(target, key),
  }) as S & Required<M>;
}

function completeTransaction(stores: TransactionStores): CompleteTransactionStores {
  return {
    tenants: withMethods(stores.tenants, {
      setRequireMfa: unavailable('tenant security policy (tenants.setRequireMfa)'),
    }),
    users: withMethods(stores.users, {
      setActive: setActiveUnavailable,
      // A store that cannot deactivate anyone: every user is active.
      countActiveByRole: countActiveByRoleOf(stores.users),
    }),
    sessions: withMethods(stores.sessions, {
      reauthenticate: unavailable('reauthentication (sessions.reauthenticate)'),
      revokeWithoutStrongAuth: unavailable('tenant security policy (sessions.revokeWithoutStrongAuth)'),
    }),
    oneTimeTokens: stores.oneTimeTokens,
    outbox: stores.outbox,
    auditEvents: stores.auditEvents,
    factors: stores.factors ?? STAND_INS.factors,
    passkeys: stores.passkeys ?? STAND_INS.passkeys,
    sso: stores.sso ?? STAND_INS.sso,
    apiKeys: stores.apiKeys
      ? withMethods(stores.apiKeys, { revokeCreatedBy: revokeCreatedByOf(stores.apiKeys) })
      : STAND_INS.apiKeys,
    webhooks: stores.webhooks ?? STAND_INS.webhooks,
    scim: stores.scim ?? STAND_INS.scim,
  };
}

/**
 * @internal The application's bundle, complete: every store and store method it leaves out is a stand-in
 * (the rule above), in its transactions too. Called once, where `createTenantAuth` resolves its options.
 */
export function completeStores(stores: TenantAuthStores): CompleteTenantAuthStores {
  return {
    ...completeTransaction(stores),
    transaction: (fn) => stores.transaction((tx) => fn(completeTransaction(tx))),
  };
}
