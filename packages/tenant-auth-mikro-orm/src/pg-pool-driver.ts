import { createHash } from 'node:crypto';
import { numberParameters, type SqlDriver } from './sql/sql-driver.js';

/** @internal What the driver uses of `pg`'s `Pool` (tenant-auth-mikro-orm does not import `pg` itself). */
export interface PgPool {
  connect(): Promise<PgPoolClient>;
  readonly ending: boolean;
}

/** @internal What the driver uses of a `pg` client checked out of the pool. */
export interface PgPoolClient {
  query(config: {
    text: string;
    values: unknown[];
    name?: string;
  }): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** With an error: the connection is broken, the pool discards it. */
  release(err?: Error | boolean): void;
}

/** @internal What {@link pgPoolDriver} is told by the ORM around it. */
export interface PgPoolDriverOptions {
  /** The schema the stores qualify their tables with ({@link SqlDriver.schema}); read for every statement. */
  readonly schema: string | undefined;
  /** The application's `onQuery` of the ORM: sees every statement, and may rewrite it, as on the ORM's path. */
  onQuery(sql: string, params: readonly unknown[]): string;
  /** A database error as the store must throw it (the ORM's exception classes, mapped to a `TenantAuthError`). */
  storeError(err: unknown): unknown;
}

/**
 * How many distinct statements get a name (a server-side prepared statement on each connection that runs
 * them). The stores hold a few hundred fixed statements, a schema of their own aside: past this many, a
 * statement is sent unnamed.
 */
const MAX_NAMED_STATEMENTS = 1000;

/**
 * Statements by their text, shared by every driver in the process: a statement's name is a digest of its
 * text, so two drivers on one pool (or two copies of this module) never give one name to two statements,
 * which `pg` refuses on a connection that prepared the first.
 */
const statements = new Map<string, { text: string; name: string | undefined }>();

function statementOf(sql: string): { text: string; name: string | undefined } {
  let statement = statements.get(sql);
  if (statement === undefined) {
    const text = numberParameters(sql);
    if (statements.size >= MAX_NAMED_STATEMENTS) return { text, name: undefined };
    statement = {
      text,
      name: `tenant_auth_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`,
    };
    statements.set(sql, statement);
  }
  return statement;
}

/** SQLSTATE of an error PostgreSQL answered (the connection is fine), else `undefined`. */
function sqlState(err: unknown): string | undefined {
  const e = err as { code?: unknown; severity?: unknown } | undefined;
  return typeof e?.severity === 'string' && typeof e.code === 'string' ? e.code : undefined;
}

/** The error as the reason to discard its client, unless PostgreSQL answered it (the connection is fine). */
function brokenBy(err: unknown): Error | undefined {
  if (sqlState(err) !== undefined) return undefined;
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * What PostgreSQL answers to a named statement it cannot run as prepared: `0A000` when its result columns
 * changed since the connection prepared it (a migration while the server runs: "cached plan must not change
 * result type"; matched by code, the message is translated), `26000` when the connection does not know the
 * name and `42P05` when it knows it already (a pooler in transaction mode, which hands each transaction to
 * any server connection, or an application's `DISCARD ALL`).
 */
const REFUSED_AS_PREPARED = new Set(['0A000', '26000', '42P05']);
const NOT_PREPARED_HERE = new Set(['26000', '42P05']);

/**
 * @internal The SQL stores' driver straight on a `pg` pool: each statement as a named prepared statement
 * (parsed and planned by PostgreSQL once per connection, then only bound and executed), its `?`
 * placeholders numbered and its values sent as parameters; `transaction` on one client of the pool between
 * `BEGIN` and `COMMIT`. On PostgreSQL the ORM's `execute` formats every value into the statement's text,
 * and the database parses and plans each one again: on the path of every authenticated read this costs
 * more than the rest of the store.
 *
 * A statement is sent unnamed when `onQuery` rewrote it (a comment per request would prepare every request
 * anew); a statement PostgreSQL refuses as prepared is sent unnamed from then on (and outside a transaction
 * at once again), and when the refusal says the connection does not hold what `pg` prepared on it (a
 * pooler in transaction mode), so is every statement of this driver. A client goes back to the pool after
 * an error PostgreSQL answered, and is discarded after any other (a broken connection, a timeout).
 */
export function pgPoolDriver(pool: PgPool, options: PgPoolDriverOptions): SqlDriver {
  let unnamedOnly = false;

  async function send(
    client: PgPoolClient,
    rawSql: string,
    params: readonly unknown[],
    inTransaction: boolean,
  ): Promise<{ rows: unknown[]; rowCount: number | null }> {
    const sql = options.onQuery(rawSql, params);
    const statement = statementOf(sql);
    const values = [...params];
    const name = unnamedOnly || sql !== rawSql ? undefined : statement.name;
    try {
      return await client.query(
        name === undefined ? { text: statement.text, values } : { name, text: statement.text, values },
      );
    } catch (err) {
      const state = sqlState(err);
      if (name === undefined || state === undefined || !REFUSED_AS_PREPARED.has(state)) throw err;
      // Never named again (a connection may hold the old plan under that name); a transaction is aborted
      // by the error, a lone statement is sent again.
      statements.set(sql, { text: statement.text, name: undefined });
      if (NOT_PREPARED_HERE.has(state)) unnamedOnly = true;
      if (inTransaction) throw err;
      return client.query({ text: statement.text, values });
    }
  }

  /** A client of the pool; what connecting throws is the store's error. */
  async function checkOut(): Promise<PgPoolClient> {
    try {
      return await pool.connect();
    } catch (err) {
      throw options.storeError(err);
    }
  }

  function driverOn(
    run: (sql: string, params: readonly unknown[]) => Promise<{ rows: unknown[]; rowCount: number | null }>,
    transaction: SqlDriver['transaction'],
  ): SqlDriver {
    return {
      get schema() {
        return options.schema;
      },
      rows: async <T>(sql: string, params: readonly unknown[]) => (await run(sql, params)).rows as T[],
      execute: async (sql, params) => (await run(sql, params)).rowCount ?? 0,
      transaction,
    };
  }

  /** One statement on a client of its own, given back after it (discarded if its connection failed). */
  async function alone(sql: string, params: readonly unknown[]) {
    const client = await checkOut();
    let broken: Error | undefined;
    try {
      return await send(client, sql, params, false);
    } catch (err) {
      broken = brokenBy(err);
      throw options.storeError(err);
    } finally {
      client.release(broken);
    }
  }

  async function transaction<T>(fn: (tx: SqlDriver) => Promise<T>): Promise<T> {
    const client = await checkOut();
    let open = true;
    let broken: Error | undefined;
    /** A statement of this transaction: its error mapped, and a connection that failed remembered. */
    const inTransaction = async (sql: string, params: readonly unknown[]) => {
      // A statement of a transaction that has ended would run in whatever the client serves next: refused.
      if (!open) throw options.storeError(new Error('the transaction has ended'));
      try {
        return await send(client, sql, params, true);
      } catch (err) {
        broken ??= brokenBy(err);
        throw options.storeError(err);
      }
    };
    const control = async (text: string) => {
      try {
        await client.query({ text, values: [] });
      } catch (err) {
        broken ??= brokenBy(err);
        throw options.storeError(err);
      }
    };
    const inside: SqlDriver = driverOn(inTransaction, (nested) => nested(inside));
    try {
      await control('begin');
      let result: T;
      try {
        result = await fn(inside);
      } catch (err) {
        // What `fn` threw passes unchanged, after the rollback; a rollback that fails leaves a connection
        // not to reuse.
        await control('rollback').catch((rollbackError: unknown) => {
          broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw err;
      }
      await control('commit');
      return result;
    } finally {
      open = false;
      client.release(broken);
    }
  }

  return driverOn(alone, transaction);
}
