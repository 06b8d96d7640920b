/** @internal The statements of a batched point read: for one key, and for several at once. */
export interface PointReadStatements<R> {
  /** The row of one key (the statement a read alone sends), `undefined` when there is none. */
  one(key: string): Promise<R | undefined>;
  /** The rows of several distinct keys in one statement, by key; a key with no row is absent. */
  many(keys: readonly string[]): Promise<ReadonlyMap<string, R>>;
  /**
   * What each read but the first that a failed statement carried is rejected with: a copy, so that no two
   * requests hold one error object. Default: the same error.
   */
  copyError?(err: unknown): unknown;
}

interface Waiter<R> {
  resolve(row: R | undefined): void;
  reject(err: unknown): void;
}

/** Distinct keys one statement reads at most. */
const MAX_KEYS = 100;

/**
 * How long reads wait behind a statement that has not come back before they go on their own: a statement
 * stuck on a dead connection or a slow pool holds the reads asked for after it this long at most. Well
 * above a busy server's round trips (its event loop alone can take 10 to 20 ms to see an answer), so that
 * under load reads still share statements instead of each going after this wait.
 */
const STALL_MS = 100;

// Taken once, so that a test's fake timers installed later cannot pair a real timer with a fake clear.
const { setTimeout: startTimer, clearTimeout: stopTimer } = globalThis;

/**
 * @internal Point reads by key that share a statement while one is out. A read asked for when no statement
 * is out goes at once, alone (`one`). Reads asked for while one is out wait for a statement to come back
 * (or for 100 ms, should none), then go together as one statement for their distinct keys (`many`, at most
 * 100 keys a statement, every statement of the waiting reads at once). So an idle database sees each read
 * as before, with no added wait, and a busy server makes one round trip for every read that arrived
 * during the last one, not one each.
 *
 * Each read is sent after it was asked for, never answered by a statement already on its way: it sees
 * every write committed before its request arrived, as a statement of its own would. For reads outside a
 * transaction only (a transaction's reads belong to it), and for statements that do not depend on the
 * request that asks (a shared statement runs in the asynchronous context of whichever request sent it:
 * key the reader by anything else, such as the schema, with {@link batchedReadsBy}). A statement that
 * fails rejects every read it carried.
 *
 * @example
 * const tenantById = batchedReads({
 *   one: async (id) => (await driver.rows(`select ... where id = ?`, [id]))[0],
 *   many: async (ids) => new Map((await driver.rows(`select ... where id = any(?::uuid[])`, [uuidArray(ids)])).map((r) => [r.id, r])),
 * });
 * const row = await tenantById(id);
 */
export function batchedReads<R>(statements: PointReadStatements<R>): (key: string) => Promise<R | undefined> {
  let out = 0;
  let asked = new Map<string, Waiter<R>[]>();
  let stall: ReturnType<typeof setTimeout> | undefined;

  const send = (batch: Map<string, Waiter<R>[]>): void => {
    out++;
    const keys = [...batch.keys()];
    const only = keys.length === 1 ? (keys[0] as string) : undefined;
    let reading: Promise<ReadonlyMap<string, R> | undefined>;
    try {
      reading =
        only === undefined
          ? statements.many(keys)
          : statements.one(only).then((row) => (row === undefined ? undefined : new Map([[only, row]])));
    } catch (err) {
      // A statement that throws rather than rejects must not leave the reads after it waiting.
      reading = Promise.reject(err);
    }
    reading.then(
      (rows) => {
        out--;
        for (const [key, waiters] of batch) {
          const row = rows?.get(key);
          for (const waiter of waiters) waiter.resolve(row);
        }
        sendAsked();
      },
      (err: unknown) => {
        out--;
        let first = true;
        for (const waiters of batch.values()) {
          for (const waiter of waiters) {
            waiter.reject(first || statements.copyError === undefined ? err : statements.copyError(err));
            first = false;
          }
        }
        sendAsked();
      },
    );
  };

  /** Every read waiting, in statements of at most {@link MAX_KEYS} keys, all at once. */
  const sendAsked = (): void => {
    if (stall !== undefined) {
      stopTimer(stall);
      stall = undefined;
    }
    if (asked.size === 0) return;
    const waiting = asked;
    asked = new Map();
    let batch = new Map<string, Waiter<R>[]>();
    for (const [key, waiters] of waiting) {
      batch.set(key, waiters);
      if (batch.size === MAX_KEYS) {
        send(batch);
        batch = new Map();
      }
    }
    if (batch.size > 0) send(batch);
  };

  return (key) =>
    new Promise<R | undefined>((resolve, reject) => {
      const waiters = asked.get(key);
      if (waiters === undefined) asked.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (out === 0) {
        sendAsked();
      } else if (stall === undefined) {
        stall = startTimer(sendAsked, STALL_MS);
        stall.unref?.();
      }
    });
}

/**
 * @internal {@link batchedReads} with one reader per scope (the qualified table a statement reads, which
 * depends on the schema of the request that asks): reads of different scopes never share a statement.
 *
 * @example
 * const tenantById = batchedReadsBy((table) => ({ one: ..., many: ... }));
 * const row = await tenantById(table(), id);
 */
export function batchedReadsBy<R>(
  statementsOf: (scope: string) => PointReadStatements<R>,
): (scope: string, key: string) => Promise<R | undefined> {
  const readers = new Map<string, (key: string) => Promise<R | undefined>>();
  return (scope, key) => {
    let read = readers.get(scope);
    if (read === undefined) {
      read = batchedReads(statementsOf(scope));
      readers.set(scope, read);
    }
    return read(key);
  };
}
