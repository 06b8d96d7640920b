import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The lock file's name inside the embedded database's folder. */
export const LOCK_FILE_NAME = 'tenant-auth.lock';

/**
 * Another live process has the embedded database's folder open; two processes on one PGlite folder
 * silently lose writes.
 *
 * @example
 * try { await lockDataFolder(dir); } catch (err) { if (err instanceof DataFolderInUseError) console.error(err.message); }
 */
export class DataFolderInUseError extends Error {
  override readonly name = 'DataFolderInUseError';
  constructor(
    readonly folder: string,
    readonly pid: number | undefined,
  ) {
    const owner =
      pid === undefined ? 'another process (unreadable lock file)' : `another process (pid ${pid})`;
    super(
      `the database folder ${folder} is in use by ${owner}; stop it first, or delete ${join(folder, LOCK_FILE_NAME)} if no such process runs`,
    );
  }
}

/** A held lock. */
export interface DataFolderLock {
  /** Deletes the lock file (if it is still this process's). */
  release(): Promise<void>;
}

// Locks this process holds: a lock file with this process's pid is stale (a previous process that had
// the same pid, as PID 1 in a container) unless it is in here.
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

async function readPid(path: string): Promise<number | undefined> {
  const text = (await readFile(path, 'utf8')).trim();
  const pid = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Takes the exclusive lock of an embedded database folder: creates `tenant-auth.lock` holding this
 * process's pid, takes over a lock whose process is gone, and throws `DataFolderInUseError` when a
 * live process (or this one) holds it.
 *
 * @example
 * const lock = await lockDataFolder('/srv/auth/data/pglite');
 * // … use the folder …
 * await lock.release();
 */
export async function lockDataFolder(folder: string): Promise<DataFolderLock> {
  const path = join(folder, LOCK_FILE_NAME);
  if (held.has(path)) throw new DataFolderInUseError(folder, process.pid);
  const mine = String(process.pid);
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(path, mine, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = await readPid(path).catch(() => undefined);
      // Fail closed on an unreadable lock; take over one whose process is gone.
      const stale = pid !== undefined && (pid === process.pid || !isAlive(pid));
      if (!stale || attempt >= 3) throw new DataFolderInUseError(folder, pid);
      await rm(path, { force: true });
      continue;
    }
    // Two processes taking over one stale lock at once: only the one whose pid is in the file goes on.
    const owner = await readPid(path).catch(() => undefined);
    if (owner !== process.pid) throw new DataFolderInUseError(folder, owner);
    held.add(path);
    return {
      async release() {
        if (!held.delete(path)) return;
        if ((await readPid(path).catch(() => undefined)) === process.pid) await rm(path, { force: true });
      },
    };
  }
}
