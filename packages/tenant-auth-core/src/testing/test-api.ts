/**
 * The assertions the conformance suites make. vitest's and Jest's `expect` both have them, so this
 * package needs no test runner's types.
 *
 * @example
 * const check: Assertions = expect(await store.findById(tenantId, id));
 * check.toBeNull();
 */
export interface Assertions {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeNull(): void;
  toHaveLength(length: number): void;
  toMatchObject(expected: object): void;
  toBeGreaterThan(expected: number): void;
  toBeGreaterThanOrEqual(expected: number): void;
  toBeLessThanOrEqual(expected: number): void;
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): void;
  toThrow(expected?: string | RegExp | (abstract new (...args: never[]) => unknown)): void;
  readonly not: Assertions;
  readonly rejects: {
    toBe(expected: unknown): Promise<void>;
    toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): Promise<void>;
    toThrow(expected?: string | RegExp | (abstract new (...args: never[]) => unknown)): Promise<void>;
  };
}

/**
 * The test functions a conformance suite registers its tests with (its `test` option). Pass vitest's (or Jest's); without
 * them the suite uses the globals (`globals: true` in vitest, always in Jest). The testing entry point
 * never imports a test runner itself, so it loads from ESM and CommonJS alike.
 *
 * @example
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest';
 * const test: TestApi = { describe, it, expect, beforeEach, afterEach };
 */
export interface TestApi {
  describe: (name: string, fn: () => void) => void;
  it: (name: string, fn: () => Promise<void> | void, timeout?: number) => void;
  beforeEach: (fn: () => Promise<void> | void) => void;
  afterEach: (fn: () => Promise<void> | void) => void;
  expect: (actual: unknown, message?: string) => Assertions;
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
