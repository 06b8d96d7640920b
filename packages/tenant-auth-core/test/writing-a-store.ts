// #region readme
import { configurationError } from 'tenant-auth-core';
import type { TenantAuthStores, TransactionStores } from 'tenant-auth-core/store-kit';

export function createMyStores(db: MyDatabase): TenantAuthStores {
  if (!db) throw configurationError('createMyStores', 'db', 'is required');
  const on = (conn: MyConnection): TransactionStores => ({
    tenants: myTenantStore(conn),
    users: myUserStore(conn),
    sessions: mySessionStore(conn),
    oneTimeTokens: myOneTimeTokenStore(conn),
    outbox: myOutboxStore(conn),
    auditEvents: myAuditEventStore(conn),
    factors: myFactorStore(conn),
    passkeys: myPasskeyStore(conn),
    sso: mySsoStore(conn),
    apiKeys: myApiKeyStore(conn),
  });
  return { ...on(db), transaction: (fn) => db.transaction((tx) => fn(on(tx))) };
}

// #endregion readme

// The sample of the README's "Writing a store" (the region above, shown there word for word:
// writing-a-store.test.ts checks it), type-checked by `pnpm typecheck`. What the sample takes as given
// follows: a database with transactions, and one store per port over a connection.
import type {
  ApiKeyStore,
  AuditEventStore,
  FactorStore,
  OneTimeTokenStore,
  OutboxStore,
  PasskeyStore,
  SessionStore,
  SsoStore,
  TenantStore,
  UserStore,
} from 'tenant-auth-core/store-kit';

interface MyConnection {
  query(sql: string, values: unknown[]): Promise<unknown[]>;
}
interface MyDatabase extends MyConnection {
  transaction<T>(fn: (tx: MyConnection) => Promise<T>): Promise<T>;
}
declare function myTenantStore(conn: MyConnection): TenantStore;
declare function myUserStore(conn: MyConnection): UserStore;
declare function mySessionStore(conn: MyConnection): SessionStore;
declare function myOneTimeTokenStore(conn: MyConnection): OneTimeTokenStore;
declare function myOutboxStore(conn: MyConnection): OutboxStore;
declare function myAuditEventStore(conn: MyConnection): AuditEventStore;
declare function myFactorStore(conn: MyConnection): FactorStore;
declare function myPasskeyStore(conn: MyConnection): PasskeyStore;
declare function mySsoStore(conn: MyConnection): SsoStore;
declare function myApiKeyStore(conn: MyConnection): ApiKeyStore;
