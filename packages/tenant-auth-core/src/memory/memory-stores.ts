import type { CompleteTenantAuthStores, CompleteTransactionStores } from '../ports/tenant-auth-stores.js';
import { memoryTenantStore, memoryUserStore } from './memory-accounts.js';
import { memoryApiKeyStore } from './memory-api-keys.js';
import { memoryAuditEventStore } from './memory-audit-events.js';
import { MemoryDatabase } from './memory-database.js';
import { memoryFactorStore } from './memory-factors.js';
import { memoryOneTimeTokenStore } from './memory-one-time-tokens.js';
import { memoryOutboxStore } from './memory-outbox.js';
import { memoryPasskeyStore } from './memory-passkeys.js';
import type { Run } from './memory-run.js';
import { memoryScimStore } from './memory-scim.js';
import { memorySessionStore } from './memory-sessions.js';
import { memorySsoStore } from './memory-sso.js';
import { memoryWebhookStore } from './memory-webhooks.js';

function storesOn(run: Run): CompleteTransactionStores {
  return {
    tenants: memoryTenantStore(run),
    users: memoryUserStore(run),
    sessions: memorySessionStore(run),
    oneTimeTokens: memoryOneTimeTokenStore(run),
    outbox: memoryOutboxStore(run),
    auditEvents: memoryAuditEventStore(run),
    factors: memoryFactorStore(run),
    passkeys: memoryPasskeyStore(run),
    sso: memorySsoStore(run),
    apiKeys: memoryApiKeyStore(run),
    webhooks: memoryWebhookStore(run),
    scim: memoryScimStore(run),
  };
}

/**
 * In-memory stores with a database's guarantees: every operation runs alone, a transaction is
 * all-or-nothing and runs alone, emails and slugs are unique, and values are copied in and out. For
 * tests and single-process demos; everything is lost on exit. Passes the conformance suite of
 * `tenant-auth-core/testing`.
 *
 * @example
 * const auth = createTenantAuth({
 *   stores: createMemoryStores(),
 *   accessToken: { secret: process.env.JWT_SECRET! },
 *   refreshSecret: process.env.JWT_REFRESH_SECRET!,
 * });
 */
export function createMemoryStores(): CompleteTenantAuthStores {
  const db = new MemoryDatabase();
  const topLevel = storesOn((fn) => db.exclusive(fn));
  return {
    ...topLevel,
    transaction: (fn) => db.transaction((state) => fn(storesOn(async (op) => op(state())))),
  };
}
