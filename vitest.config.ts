import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * One config for the whole workspace. Workspace packages resolve to their TypeScript sources, so the
 * tests never run against a stale build. Each package is a project; run one with `--project core`.
 */
export default defineConfig({
  resolve: {
    alias: [
      {
        find: /^tenant-auth-core\/store-kit$/,
        replacement: src('./packages/tenant-auth-core/src/store-kit.ts'),
      },
      {
        find: /^tenant-auth-core\/testing$/,
        replacement: src('./packages/tenant-auth-core/src/testing/index.ts'),
      },
      { find: /^tenant-auth-core$/, replacement: src('./packages/tenant-auth-core/src/index.ts') },
      { find: /^tenant-auth-koa\/contract$/, replacement: src('./packages/tenant-auth-koa/src/contract.ts') },
      { find: /^tenant-auth-koa$/, replacement: src('./packages/tenant-auth-koa/src/index.ts') },
      { find: /^tenant-auth-mikro-orm$/, replacement: src('./packages/tenant-auth-mikro-orm/src/index.ts') },
      {
        find: /^tenant-auth-mikro-orm\/sql$/,
        replacement: src('./packages/tenant-auth-mikro-orm/src/sql/index.ts'),
      },
      { find: /^tenant-auth-redis$/, replacement: src('./packages/tenant-auth-redis/src/index.ts') },
      { find: /^tenant-auth-client$/, replacement: src('./packages/tenant-auth-client/src/index.ts') },
    ],
  },
  test: {
    // The JSON report is what .ci/run counts; `pnpm test` writes it for everyone, so CI runs the README's command as is.
    // The path is set through `outputFile` (not the reporter's own option) so `--outputFile.json=…` can override it.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    // The conformance suites of tenant-auth-core/testing fall back to the global test functions.
    globals: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'core', include: ['packages/tenant-auth-core/{src,test}/**/*.test.ts'] },
      },
      { extends: true, test: { name: 'koa', include: ['packages/tenant-auth-koa/{src,test}/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'mikro-orm', include: ['packages/tenant-auth-mikro-orm/{src,test}/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'redis', include: ['packages/tenant-auth-redis/{src,test}/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'client', include: ['packages/tenant-auth-client/{src,test}/**/*.test.ts'] },
      },
      // Any other package (a new store backend, …): its tests run with no line of its own here.
      {
        extends: true,
        test: {
          name: 'packages',
          include: ['packages/*/{src,test}/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'packages/tenant-auth-{core,koa,mikro-orm,redis,client}/**'],
        },
      },
      { extends: true, test: { name: 'server', include: ['examples/server/{src,test}/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'custom-app', include: ['examples/custom-app/{src,test}/**/*.test.ts'] },
      },
      // In Chromium a page changes after a round trip to the server: on a loaded CI machine a poll's default
      // second is too short for that (a flash that came after 1.2 s failed a run); a poll still fails when
      // what it waits for never comes.
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['examples/browser-e2e/test/**/*.test.ts'],
          expect: { poll: { timeout: 10_000 } },
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['examples/web/test/**/*.test.ts'],
          expect: { poll: { timeout: 10_000 } },
        },
      },
      // docs/extending.md's recipes: each a small file with its test, type-checked and run like any other.
      { extends: true, test: { name: 'recipes', include: ['recipes/**/*.test.ts'] } },
      // The repository's own scripts (the semver gate, …).
      { extends: true, test: { name: 'scripts', include: ['scripts/**/*.test.ts'] } },
    ],
  },
});
