import { STORE_NAMES } from '../ports/store-names.js';
import type { CompleteTenantAuthStores, TenantAuthStores, UserRecord } from '../store-kit.js';
import { apiKeyCases } from './conformance/api-keys.js';
import { auditListCases, auditWriteCases, rotationEventCases } from './conformance/audit-events.js';
import type { ConformanceContext } from './conformance/context.js';
import { deactivationCases } from './conformance/deactivation.js';
import {
  tenantDeletionCases,
  tenantLockCases,
  userDeletionCases,
} from './conformance/deletions-and-locks.js';
import { factorLockCases } from './conformance/factor-lock.js';
import { challengeCases, recoveryCodeCases, totpFactorCases } from './conformance/factors.js';
import { listLimitCases } from './conformance/list-limits.js';
import { emailChangeCases, memberChangeCases, memberListCases } from './conformance/members.js';
import { tokenConsumeCases, tokenIssueCases, tokenTenantCases } from './conformance/one-time-tokens.js';
import { outboxCases } from './conformance/outbox.js';
import { passkeyCases, webauthnChallengeCases } from './conformance/passkeys.js';
import { rotateCurrentCases } from './conformance/rotate-current.js';
import { scimCases } from './conformance/scim.js';
import { sealedValueCases } from './conformance/sealed-values.js';
import { reauthenticateCases, requireMfaCases } from './conformance/second-factor-sessions.js';
import { sessionFindByIdCases, sessionFindByRefreshHashCases } from './conformance/session-reads.js';
import {
  sessionCleanupCases,
  sessionRevokeCases,
  sessionRotateCases,
  sessionsOfUserCases,
} from './conformance/session-writes.js';
import { domainCases, ssoConnectionCases, ssoUseOnceCases } from './conformance/sso.js';
import { revokeHeldBySsoCases } from './conformance/sso-hold-sessions.js';
import { tenantAndUserCreationCases, userReadAndPasswordCases } from './conformance/tenants-users.js';
import { transactionCases } from './conformance/transactions.js';
import { webhookCases } from './conformance/webhooks.js';
import { tenantAndOwner } from './fixtures.js';
import { resolveTestApi, type TestApi } from './test-api.js';

/**
 * Options of `runStoreConformance`.
 *
 * @example
 * const options: StoreConformanceOptions = { name: 'my store', createStores: () => createMyStores(db) };
 */
export interface StoreConformanceOptions {
  /** Shown in the test names, e.g. `'mikro-orm (PGlite)'`. */
  name: string;
  /** Called before every test: stores over EMPTY storage (truncate or recreate between tests). */
  createStores: () => Promise<TenantAuthStores> | TenantAuthStores;
  /** Called after every test. */
  destroyStores?: (stores: TenantAuthStores) => Promise<void> | void;
  /** vitest's (or Jest's) `describe`, `it`, `expect`, `beforeEach`, `afterEach`; default: the globals. */
  test?: TestApi;
}

/** Every group of cases, one port (or one part of one) each, in the order they run. */
const CASES: ((context: ConformanceContext) => void)[] = [
  tenantAndUserCreationCases,
  userReadAndPasswordCases,
  memberListCases,
  memberChangeCases,
  deactivationCases,
  emailChangeCases,
  userDeletionCases,
  tenantDeletionCases,
  tenantLockCases,
  transactionCases,
  sessionFindByIdCases,
  sessionFindByRefreshHashCases,
  sessionRotateCases,
  rotationEventCases,
  rotateCurrentCases,
  sessionRevokeCases,
  sessionsOfUserCases,
  sessionCleanupCases,
  tokenIssueCases,
  tokenConsumeCases,
  tokenTenantCases,
  outboxCases,
  auditListCases,
  auditWriteCases,
  listLimitCases,
  totpFactorCases,
  recoveryCodeCases,
  challengeCases,
  factorLockCases,
  reauthenticateCases,
  requireMfaCases,
  passkeyCases,
  webauthnChallengeCases,
  domainCases,
  ssoConnectionCases,
  revokeHeldBySsoCases,
  ssoUseOnceCases,
  apiKeyCases,
  webhookCases,
  scimCases,
  sealedValueCases,
];

/**
 * Registers the store conformance suite. Every implementation of `TenantAuthStores` runs it. It calls the
 * stores alone (no service of core runs in it), a `describe` per store method: transactions (all or
 * nothing, serialised where it matters), uniqueness, compare-and-set rotation under concurrency, cleanup,
 * and tenant isolation: every method that takes a tenant id has a case named `in another tenant: …` that
 * checks it neither reads nor changes anything of another tenant.
 *
 * @example
 * // my-stores.test.ts
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest';
 * import { runStoreConformance } from 'tenant-auth-core/testing';
 * runStoreConformance({
 *   name: 'my stores',
 *   createStores: async () => createMyStores(await freshDatabase()),
 *   test: { describe, it, expect, beforeEach, afterEach },
 * });
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  const test = resolveTestApi(options.test);
  test.describe(`store conformance: ${options.name}`, () => {
    let stores: TenantAuthStores;

    test.beforeEach(async () => {
      stores = await options.createStores();
    });
    test.afterEach(async () => {
      await options.destroyStores?.(stores);
    });

    async function seed(input: ReturnType<typeof tenantAndOwner>): Promise<void> {
      await stores.transaction(async (tx) => {
        await tx.tenants.create(input.tenant);
        await tx.users.create(input.user);
      });
    }

    async function seedUser(overrides: { email?: string; slug?: string } = {}): Promise<UserRecord> {
      const input = tenantAndOwner(overrides);
      await seed(input);
      return input.user;
    }

    // The suite checks every store of the bundle, 1.2's optional ones included: one left out fails, named.
    const complete = (): CompleteTenantAuthStores => {
      const missing = STORE_NAMES.filter((name) => stores[name] === undefined);
      if (missing.length > 0) throw new Error(`store conformance: the bundle has no ${missing.join(', ')}`);
      return stores as CompleteTenantAuthStores;
    };
    const context: ConformanceContext = { test, stores: complete, seed, seedUser };
    for (const cases of CASES) cases(context);
  });
}
