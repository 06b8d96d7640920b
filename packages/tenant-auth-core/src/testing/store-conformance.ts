import type { TenantAuthStores, UserRecord } from '../store-kit.js';
import { apiKeyCases } from './conformance/api-keys.js';
import { auditListCases, auditWriteCases, rotationEventCases } from './conformance/audit-events.js';
import type { ConformanceContext } from './conformance/context.js';
import {
  tenantDeletionCases,
  tenantLockCases,
  userDeletionCases,
} from './conformance/deletions-and-locks.js';
import { challengeCases, recoveryCodeCases, totpFactorCases } from './conformance/factors.js';
import { listLimitCases } from './conformance/list-limits.js';
import { emailChangeCases, memberChangeCases, memberListCases } from './conformance/members.js';
import { tokenConsumeCases, tokenIssueCases, tokenTenantCases } from './conformance/one-time-tokens.js';
import { outboxCases } from './conformance/outbox.js';
import { passkeyCases, webauthnChallengeCases } from './conformance/passkeys.js';
import { rotateCurrentCases } from './conformance/rotate-current.js';
import { reauthenticateCases, requireMfaCases } from './conformance/second-factor-sessions.js';
import { sessionFindByIdCases, sessionFindByRefreshHashCases } from './conformance/session-reads.js';
import {
  sessionCleanupCases,
  sessionRevokeCases,
  sessionRotateCases,
  sessionsOfUserCases,
} from './conformance/session-writes.js';
import { domainCases, ssoConnectionCases } from './conformance/sso.js';
import { tenantAndUserCreationCases, userReadAndPasswordCases } from './conformance/tenants-users.js';
import { transactionCases } from './conformance/transactions.js';
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
  reauthenticateCases,
  requireMfaCases,
  passkeyCases,
  webauthnChallengeCases,
  domainCases,
  ssoConnectionCases,
  apiKeyCases,
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

    const context: ConformanceContext = { test, stores: () => stores, seed, seedUser };
    for (const cases of CASES) cases(context);
  });
}
