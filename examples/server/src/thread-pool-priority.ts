import { randomFill } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { setPriority } from 'node:os';

/** The name libuv gives the threads of its pool (Linux, libuv 1.45 and later). */
const WORKER_NAME = 'libuv-worker';

/**
 * Raises the nice value of libuv's thread-pool threads to `nice` (lowers their CPU priority), and returns
 * how many threads it changed. bcrypt runs in that pool: during a login flood its threads keep every
 * core busy, and with the same priority as the main thread an authenticated read waits its turn behind
 * them (in `pnpm bench isolation`, p99 19.7 and 24.2 ms against 9.7 and 7.2 ms with the pool at nice 19).
 * With a higher nice the main thread, and the database on the same machine, get the cores first and
 * the logins take what is left; with nothing else to run, the pool still gets all of it.
 *
 * Linux only: the threads are found by name in `/proc/self/task`. Elsewhere, or when there is none (an
 * older libuv), it changes nothing and returns 0; `nice` 0 changes nothing either. Raising a nice value
 * needs no privilege. It applies to the whole pool (file system, DNS and WebCrypto work too) and to
 * the whole process: call it from a server's entry point, not from a library.
 *
 * @example
 * const changed = await lowerThreadPoolPriority(10);
 * logger.info({ threads: changed, nice: 10 }, 'thread pool priority lowered');
 */
export async function lowerThreadPoolPriority(nice: number, tasks = '/proc/self/task'): Promise<number> {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) {
    throw new RangeError(`nice must be an integer from 0 to 19, got ${nice}`);
  }
  if (nice === 0 || process.platform !== 'linux') return 0;
  // libuv starts every thread of its pool with the first job handed to it: make sure there was one.
  await new Promise((resolve) => randomFill(Buffer.alloc(1), resolve));
  let changed = 0;
  for (const tid of await readdir(tasks).catch(() => [])) {
    const name = await readFile(`${tasks}/${tid}/comm`, 'utf8').catch(() => '');
    if (name.trim() !== WORKER_NAME) continue;
    setPriority(Number(tid), nice);
    changed++;
  }
  return changed;
}
