import type { LockManagerLike } from './cross-tab.js';

/**
 * @internal The refreshes and re-authentications of a page (each rotates the refresh token: two at once
 * would present a rotated one, a replay) one after the other, in the order asked, each holding the Web
 * Lock `refresh:<key>` across tabs when there is one. A failed task does not stop the next; a task must
 * never wait for one queued after it (that would wait forever).
 */
export function refreshQueue(
  locks: LockManagerLike | null,
  key: () => Promise<string>,
): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const locked = async (): Promise<T> => {
      const name = `refresh:${await key()}`;
      return locks ? locks.request(name, task) : task();
    };
    const run = tail.then(locked, locked);
    tail = run.catch(() => undefined);
    return run;
  };
}
