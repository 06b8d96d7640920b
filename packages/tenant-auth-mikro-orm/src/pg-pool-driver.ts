import { createHash } from 'node:crypto';
import { numberParameters, type SqlDriver } from './sql/sql-driver.js';

/** @internal What the driver uses of `pg`'s `Pool` (tenant-auth-mikro-orm does not import `pg` itself). */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  readonly ending: boolean;
  readonly ended?: boolean;
}

/** @internal What the driver uses of a `pg` client checked out of the pool. */
export interface PgPoolClient extends PgQueryable {
  /** With an error: the connection is broken, the pool discards it. */
  release(err?: Error | boolean): void;
}

interface PgQueryable {
  query(config: {
    text: string;
    values: unknown[];
    name?: string;
  }): Promise<{ rows: unknown[]; rowCount: number | null }>;
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
 * them). The stores hold a few hundred fixed statements; an `onQuery` that writes something new into every
 * statement would otherwise prepare without end: past this many, a statement is sent unnamed.
 */
const MAX_NAMED_STATEMENTS = 1000;

/**
 * Statements by their text (after `onQuery`), shared by every driver in the process: a statement's name is
 * a digest of its text, so two drivers on one pool (or two copies of this module) never give one name to
 * two statements, which `pg` refuses on a connection that prepared the first.
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

/** PostgreSQL's answer to a prepared statement whose result columns changed under it (`select *` after `ALTER TABLE`). */
function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan');
}

/**
 * @internal The SQL stores' driver straight on a `pg` pool: each statement as a named prepared statement
 * (parsed and planned by PostgreSQL once per connection, then only bound and executed), its `?` placeholders
 * numbered and its values sent as parameters; `transaction` on one client of the pool between `BEGIN` and
 * `COMMIT`. On PostgreSQL the ORM's `execute` formats every value into the statement's text, and the
 * database parses and plans each one again: on the path of every authenticated read this costs more than
 * the rest of the store.
 *
 * A statement whose result columns changed since a connection prepared it (a migration while the server
 * runs) is sent unnamed from then on; outside a transaction it is sent again at once.
 */
export function pgPoolDriver(pool: PgPool, options: PgPoolDriverOptions): SqlDriver {
  async function send(
    on: PgQueryable,
    rawSql: string,
    params: readonly unknown[],
    inTransaction: boolean,
  ): Promise<{ rows: unknown[]; rowCount: number | null }> {
    const sql = options.onQuery(rawSql, params);
    const statement = statementOf(sql);
    const values = [...params];
    try {
      return await on.query(
        statement.name === undefined
          ? { text: statement.text, values }
          : { name: statement.name, text: statement.text, values },
      );
    } catch (err) {
      if (statement.name === undefined || !isStalePlan(err)) throw options.storeError(err);
      // Never named again (each connection holds the old plan under that name); a transaction is aborted
      // by the error, a lone statement is sent again.
      statements.set(sql, { text: statement.text, name: undefined });
      if (inTransaction) throw options.storeError(err);
      try {
        return await on.query({ text: statement.text, values });
      } catch (again) {
        throw options.storeError(again);
      }
    }
  }

  function on(target: PgQueryable, inTransaction: boolean, transaction: SqlDriver['transaction']): SqlDriver {
    return {
      get schema() {
        return options.schema;
      },
      rows: async <T>(sql: string, params: readonly unknown[]) =>
        (await send(target, sql, params, inTransaction)).rows as T[],
      execute: async (sql, params) => (await send(target, sql, params, inTransaction)).rowCount ?? 0,
      transaction,
    };
  }

  return on(pool, false, async function transaction(fn) {
    let client: PgPoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw options.storeError(err);
    }
    const inside: SqlDriver = on(client, true, (nested) => nested(inside));
    let broken: Error | undefined;
    try {
      await client.query({ text: 'begin', values: [] }).catch((err) => {
        broken = err as Error;
        throw options.storeError(err);
      });
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn(inside);
      } catch (err) {
        // What `fn` threw passes unchanged; a rollback that fails leaves a connection not to reuse.
        await client.query({ text: 'rollback', values: [] }).catch((rollback) => {
          broken = rollback as Error;
        });
        throw err;
      }
      try {
        await client.query({ text: 'commit', values: [] });
      } catch (err) {
        broken = err as Error;
        throw options.storeError(err);
      }
      return result;
    } finally {
      client.release(broken);
    }
  });
}
