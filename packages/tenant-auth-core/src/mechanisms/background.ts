import type { Logger } from '../ports/logger.js';

/**
 * @internal Work a request starts but does not wait for (the enumeration-safe half of "forgot my
 * password"): tracked, so tests and a graceful shutdown can wait for it, and logged when it fails.
 */
export function createBackground(logger: Logger) {
  const running = new Set<Promise<void>>();
  return {
    run(name: string, task: () => Promise<void>): void {
      const promise: Promise<void> = Promise.resolve()
        .then(task)
        .catch((err: unknown) =>
          logger.warn({ err, task: name }, `tenant-auth: background work failed: ${name}`),
        )
        .finally(() => running.delete(promise));
      running.add(promise);
    },
    async whenIdle(): Promise<void> {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

/** @internal */
export type Background = ReturnType<typeof createBackground>;
