import { randomFill } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { getPriority, setPriority } from 'node:os';

/** The name libuv gives the threads of its pool (Linux, libuv 1.50 and later: Node 22.13 and later). */
const WORKER_NAME = 'libuv-worker';

/**
 * Raises the nice value of libuv's thread-pool threads to at least `nice` (lowers their CPU priority),
 * and returns how many pool threads it found (each now at `nice` or above). bcrypt runs in that pool:
 * during a login flood its threads keep every core busy, and with the same priority as the main thread an
 * authenticated read waits its turn behind them (`pnpm bench isolation`, alternated three times: p99
 * 24.6 to 28.2 ms at nice 0, 8.1 to 9.4 ms at nice 10). With a higher nice the main thread gets the cores
 * first and the logins take what is left; with nothing else to run, the pool still gets all of it. The
 * nice value ranks threads of one scheduling group only (a process group under Linux's autogroup, a
 * cgroup): it does not make the pool yield to other services.
 *
 * Linux only: the threads are found by name in `/proc/self/task`. Elsewhere, or when there is none (an
 * older libuv), it changes nothing and returns 0; `nice` 0 changes nothing either. A thread already at a
 * higher nice (a server started with `nice`) is left where it is, so this never needs a privilege. It
 * applies to the whole pool (file system, DNS and WebCrypto work too) and to the whole process: call it
 * from a server's entry point, not from a library.
 *
 * @example
 * const threads = await lowerThreadPoolPriority(10);
 * logger.info({ threads, nice: 10 }, 'thread pool priority lowered');
 */
export async function lowerThreadPoolPriority(nice: number, tasks = '/proc/self/task'): Promise<number> {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) {
    throw new RangeError(`nice must be an integer from 0 to 19, got ${nice}`);
  }
  if (nice === 0 || process.platform !== 'linux') return 0;
  // libuv starts every thread of its pool with the first job handed to it: make sure there was one.
  await new Promise((resolve) => randomFill(Buffer.alloc(1), resolve));
  let found = 0;
  for (const entry of await readdir(tasks).catch(() => [])) {
    const name = await readFile(`${tasks}/${entry}/comm`, 'utf8').catch(() => '');
    if (name.trim() !== WORKER_NAME) continue;
    const tid = Number(entry);
    if (getPriority(tid) < nice) setPriority(tid, nice);
    found++;
  }
  return found;
}
