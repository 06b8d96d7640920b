import { describe, expect, it } from 'vitest';
import { batchedReads, batchedReadsBy } from './batched-reads.js';
import { createSqlStores, sqlStores } from './create-sql-stores.js';
import type { SqlDriver } from './sql-driver.js';

/** Statements over a table in memory that answer only when told (`answer()`), recording what was sent. */
function heldStatements(table: Map<string, string>) {
  const sent: (string | string[])[] = [];
  const pending: { run: () => void; fail: (err: unknown) => void }[] = [];
  const held = <T>(compute: () => T) =>
    new Promise<T>((resolve, reject) => {
      pending.push({ run: () => resolve(compute()), fail: reject });
    });
  return {
    sent,
    statements: {
      one: (key: string) => {
        sent.push(key);
        return held(() => table.get(key));
      },
      many: (keys: readonly string[]) => {
        sent.push([...keys]);
        // Each statement reads the table as it is when it runs (answers), not when it was asked.
        return held(() => new Map(keys.flatMap((k) => (table.has(k) ? [[k, table.get(k) as string]] : []))));
      },
    },
    /** Answers the oldest statement out, then lets the reads it carried (and the next statement) run. */
    async answer(err?: unknown) {
      const next = pending.shift();
      if (next === undefined) throw new Error('no statement is out');
      if (err === undefined) next.run();
      else next.fail(err);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** A table of each key to its upper case. */
const upperCase = (...keys: string[]) => new Map(keys.map((key) => [key, key.toUpperCase()]));

describe('batchedReads', () => {
  it('sends a read alone at once when none is out', async () => {
    const db = heldStatements(new Map([['a', 'A']]));
    const read = batchedReads(db.statements);
    const a = read('a');
    expect(db.sent).toEqual(['a']);
    await db.answer();
    await expect(a).resolves.toBe('A');
  });

  it('sends the reads asked for while one is out as one statement of their distinct keys', async () => {
    const db = heldStatements(upperCase('a', 'b', 'c'));
    const read = batchedReads(db.statements);
    const first = read('a');
    const waiting = [read('b'), read('c'), read('b'), read('missing')];
    expect(db.sent).toEqual(['a']);
    await db.answer();
    await expect(first).resolves.toBe('A');
    expect(db.sent).toEqual(['a', ['b', 'c', 'missing']]);
    await db.answer();
    await expect(Promise.all(waiting)).resolves.toEqual(['B', 'C', 'B', undefined]);
    // Nothing is out any more: the next read goes alone, at once.
    const later = read('c');
    expect(db.sent.at(-1)).toBe('c');
    await db.answer();
    await expect(later).resolves.toBe('C');
  });

  it('never answers a read with a statement sent before it was asked for', async () => {
    const table = new Map([['a', 'before']]);
    const db = heldStatements(table);
    const read = batchedReads(db.statements);
    const early = read('a');
    // A write commits while the first read is out, then the same key is asked for again.
    table.set('a', 'after');
    const late = read('a');
    await db.answer();
    await db.answer();
    // The first statement ran after the write here too; what matters is that the second read had one of its own.
    expect(db.sent).toEqual(['a', 'a']);
    await expect(late).resolves.toBe('after');
    await early;
  });

  it('rejects the reads a failed statement carried, and goes on with the next', async () => {
    const db = heldStatements(
      new Map([
        ['a', 'A'],
        ['b', 'B'],
      ]),
    );
    const read = batchedReads(db.statements);
    const failure = new Error('connection lost');
    // Each expectation is attached before its statement fails, so no rejection goes unhandled meanwhile.
    const first = expect(read('a')).rejects.toBe(failure);
    const carried = [read('a'), read('b')].map((r) => expect(r).rejects.toBe(failure));
    await db.answer(failure);
    await first;
    const after = read('b');
    await db.answer(failure);
    await Promise.all(carried);
    await db.answer();
    await expect(after).resolves.toBe('B');
  });

  it('sends the reads behind a statement stuck for 100 ms on their own, and the rest when it comes back', async () => {
    const db = heldStatements(upperCase('a', 'b', 'c'));
    const read = batchedReads(db.statements);
    const stuck = read('a');
    const behind = read('b');
    expect(db.sent).toEqual(['a']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(db.sent).toEqual(['a']);
    await new Promise((resolve) => setTimeout(resolve, 80));
    // The first statement has not come back: the read waiting behind it went on its own.
    expect(db.sent).toEqual(['a', 'b']);
    const later = read('c');
    expect(db.sent).toEqual(['a', 'b']);
    await db.answer();
    await expect(stuck).resolves.toBe('A');
    // A statement came back: the read asked for meanwhile went at once.
    expect(db.sent).toEqual(['a', 'b', 'c']);
    await db.answer();
    await db.answer();
    await expect(Promise.all([behind, later])).resolves.toEqual(['B', 'C']);
  });

  it('gives each further read a failed statement carried a copy of its error, when told how', async () => {
    const db = heldStatements(new Map());
    const read = batchedReads({
      ...db.statements,
      copyError: (err) => new Error((err as Error).message),
    });
    const first = read('x');
    const carried = [read('a'), read('b'), read('b')];
    await db.answer();
    await first;
    const errors = carried.map((r) => r.catch((err: unknown) => err));
    await db.answer(new Error('connection lost'));
    const [e1, e2, e3] = await Promise.all(errors);
    expect([e1, e2, e3].map((e) => (e as Error).message)).toEqual(Array(3).fill('connection lost'));
    expect(new Set([e1, e2, e3]).size).toBe(3);
  });

  it('sends at most 100 distinct keys in one statement', async () => {
    const table = new Map(Array.from({ length: 250 }, (_, i) => [`k${i}`, `v${i}`] as const));
    const db = heldStatements(table);
    const read = batchedReads(db.statements);
    const first = read('k0');
    const rest = Array.from({ length: 249 }, (_, i) => read(`k${i + 1}`));
    await db.answer();
    // All the reads that waited go at once, in statements of at most 100 keys.
    expect(db.sent.map((s) => (Array.isArray(s) ? s.length : 1))).toEqual([1, 100, 100, 49]);
    await db.answer();
    await db.answer();
    await db.answer();
    await first;
    await expect(Promise.all(rest)).resolves.toEqual(rest.map((_, i) => `v${i + 1}`));
  });

  it('does not leave later reads waiting when a statement throws instead of rejecting', async () => {
    let calls = 0;
    const read = batchedReads<string>({
      one: (key) => {
        calls++;
        if (calls === 1) throw new Error('thrown');
        return Promise.resolve(key.toUpperCase());
      },
      many: () => Promise.reject(new Error('unused')),
    });
    await expect(read('a')).rejects.toThrow('thrown');
    await expect(read('b')).resolves.toBe('B');
  });

  it('never shares a statement between reads of different scopes (tables of different schemas)', async () => {
    const sent: string[] = [];
    const read = batchedReadsBy<string>((scope) => ({
      one: async (key) => {
        sent.push(`${scope}: ${key}`);
        return `${scope}.${key}`;
      },
      many: async (keys) => {
        sent.push(`${scope}: ${keys.join(',')}`);
        return new Map(keys.map((key) => [key, `${scope}.${key}`]));
      },
    }));
    const rows = await Promise.all([
      read('a', '1'),
      read('b', '1'),
      read('a', '2'),
      read('b', '2'),
      read('a', '3'),
    ]);
    expect(rows).toEqual(['a.1', 'b.1', 'a.2', 'b.2', 'a.3']);
    expect(sent).toEqual(['a: 1', 'b: 1', 'a: 2,3', 'b: 2']);
  });
});

describe('reads by id on the SQL stores', () => {
  /** A driver that records each statement and answers no rows, a turn of the event loop later. */
  function recordingDriver(): SqlDriver & { sent: string[] } {
    const sent: string[] = [];
    const driver: SqlDriver & { sent: string[] } = {
      sent,
      rows: async (sql) => {
        sent.push(sql);
        await new Promise((resolve) => setImmediate(resolve));
        return [];
      },
      execute: async () => 0,
      transaction: (fn) => fn(driver),
    };
    return driver;
  }
  const ids = ['0b8a3c52-5f3e-4f7e-9d43-7c1c2b6e1a01', '0b8a3c52-5f3e-4f7e-9d43-7c1c2b6e1a02'];

  it('shares statements on the stores of MikroORM (sqlStores with batchedReads)', async () => {
    const driver = recordingDriver();
    const stores = sqlStores(driver, { batchedReads: true });
    await Promise.all([...ids, ...ids].map((id) => stores.tenants.findById(id)));
    expect(driver.sent).toHaveLength(2);
  });

  it("sends a statement per read on createSqlStores, whose driver may depend on the asking request's context", async () => {
    const driver = recordingDriver();
    const stores = createSqlStores(driver);
    await Promise.all([...ids, ...ids].map((id) => stores.tenants.findById(id)));
    await Promise.all(ids.map((id) => stores.users.findById(id, id)));
    expect(driver.sent).toHaveLength(6);
  });
});
