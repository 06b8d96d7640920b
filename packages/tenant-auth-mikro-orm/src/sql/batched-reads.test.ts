import { describe, expect, it } from 'vitest';
import { batchedReads } from './batched-reads.js';

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
    const db = heldStatements(
      new Map([
        ['a', 'A'],
        ['b', 'B'],
        ['c', 'C'],
      ]),
    );
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

  it('sends at most 100 distinct keys in one statement', async () => {
    const table = new Map(Array.from({ length: 250 }, (_, i) => [`k${i}`, `v${i}`] as const));
    const db = heldStatements(table);
    const read = batchedReads(db.statements);
    const first = read('k0');
    const rest = Array.from({ length: 249 }, (_, i) => read(`k${i + 1}`));
    await db.answer();
    await db.answer();
    await db.answer();
    await db.answer();
    expect(db.sent.map((s) => (Array.isArray(s) ? s.length : 1))).toEqual([1, 100, 100, 49]);
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
});
