import type { ExpectStatic } from 'vitest';

/**
 * The test functions a conformance suite registers its tests with. Pass vitest's (or Jest's); without
 * them the suite uses the globals (`globals: true` in vitest, always in Jest). The testing entry point
 * never imports a test runner itself, so it loads from ESM and CommonJS alike.
 */
export interface TestApi {
  describe: (name: string, fn: () => void) => void;
  it: (name: string, fn: () => Promise<void> | void, timeout?: number) => void;
  beforeEach: (fn: () => Promise<void> | void) => void;
  afterEach: (fn: () => Promise<void> | void) => void;
  expect: ExpectStatic;
}

/** @internal */
export function resolveTestApi(given: TestApi | undefined): TestApi {
  if (given) return given;
  const g = globalThis as unknown as Partial<TestApi>;
  if (g.describe && g.it && g.beforeEach && g.afterEach && g.expect) {
    return {
      describe: g.describe,
      it: g.it,
      beforeEach: g.beforeEach,
      afterEach: g.afterEach,
      expect: g.expect,
    };
  }
  throw new TypeError(
    "no test functions: pass { test: { describe, it, expect, beforeEach, afterEach } } (import them from 'vitest'), or enable vitest's globals",
  );
}
