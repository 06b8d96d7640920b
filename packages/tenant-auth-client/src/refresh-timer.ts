import type { ClientClock, ClientTimers } from './options.js';

/** Longest delay a timer takes (2^31 - 1 ms). */
const MAX_DELAY_MS = 2_147_483_647;

/** @internal The one timer of the silent refresh. */
export interface RefreshTimer {
  /** Runs `onDue` at `at` (client clock), instead of any earlier plan; `null`: nothing planned. */
  plan(at: number | null): void;
  /** Cancels the plan, for good. */
  close(): void;
}

/** @internal A refresh timer; with `enabled` false (the `autoRefresh` option), it never runs. */
export function refreshTimer(
  clock: ClientClock,
  timers: ClientTimers,
  enabled: boolean,
  onDue: () => void,
): RefreshTimer {
  let timer: unknown;
  let closed = false;
  const clear = () => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  };
  return {
    plan(at) {
      clear();
      if (!enabled || closed || at === null) return;
      const delay = Math.min(MAX_DELAY_MS, Math.max(0, at - clock.now()));
      timer = timers.setTimeout(() => {
        timer = undefined;
        onDue();
      }, delay);
    },
    close() {
      closed = true;
      clear();
    },
  };
}
