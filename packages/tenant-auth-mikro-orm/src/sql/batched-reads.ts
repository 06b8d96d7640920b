/** @internal The two statements of a batched point read: for one key, and for several at once. */
export interface PointReadStatements<R> {
  /** The row of one key (the statement a read alone sends), `undefined` when there is none. */
  one(key: string): Promise<R | undefined>;
  /** The rows of several distinct keys in one statement, by key; a key with no row is absent. */
  many(keys: readonly string[]): Promise<ReadonlyMap<string, R>>;
}

interface Waiter<R> {
  resolve(row: R | undefined): void;
  reject(err: unknown): void;
}

/** Distinct keys one statement reads at most. */
const MAX_KEYS = 100;

/**
 * @internal Point reads by key that share a statement while one is out. A read asked for when none is out
 * goes at once, alone (`one`). Reads asked for while one is out wait for it to come back, then go together
 * as one statement for their distinct keys (`many`, at most 100 keys; the rest in the next), and so on. So
 * an idle database sees each read as before, with no timer and no added wait, and a busy server makes one
 * round trip for every read that arrived during the last one, not one each.
 *
 * Each read is sent after it was asked for, never answered by a statement already on its way: it sees
 * every write committed before its request arrived, as a statement of its own would. For reads outside a
 * transaction only (a transaction's reads belong to it). A statement that fails rejects every read it
 * carried, with its error.
 *
 * @example
 * const tenantById = batchedReads({
 *   one: async (id) => (await driver.rows(`select ... where id = ?`, [id]))[0],
 *   many: async (ids) => new Map((await driver.rows(`select ... where id = any(?::uuid[])`, [uuidArray(ids)])).map((r) => [r.id, r])),
 * });
 * const row = await tenantById(id);
 */
export function batchedReads<R>(statements: PointReadStatements<R>): (key: string) => Promise<R | undefined> {
  let out = false;
  let asked = new Map<string, Waiter<R>[]>();

  const send = (): void => {
    if (asked.size === 0) {
      out = false;
      return;
    }
    out = true;
    let batch = asked;
    if (asked.size <= MAX_KEYS) {
      asked = new Map();
    } else {
      batch = new Map();
      for (const [key, waiters] of asked) {
        if (batch.size === MAX_KEYS) break;
        batch.set(key, waiters);
        asked.delete(key);
      }
    }
    const keys = [...batch.keys()];
    const only = keys.length === 1 ? (keys[0] as string) : undefined;
    let reading: Promise<ReadonlyMap<string, R> | undefined>;
    try {
      reading =
        only === undefined
          ? statements.many(keys)
          : statements.one(only).then((row) => (row === undefined ? undefined : new Map([[only, row]])));
    } catch (err) {
      // A statement that throws rather than rejects must not leave the reads after it waiting forever.
      reading = Promise.reject(err);
    }
    reading.then(
      (rows) => {
        for (const [key, waiters] of batch) {
          const row = rows?.get(key);
          for (const waiter of waiters) waiter.resolve(row);
        }
        send();
      },
      (err: unknown) => {
        for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(err);
        send();
      },
    );
  };

  return (key) =>
    new Promise<R | undefined>((resolve, reject) => {
      const waiters = asked.get(key);
      if (waiters === undefined) asked.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (!out) send();
    });
}
