// The import rules of the workspace (ARCHITECTURE.md, "Core" and "Layout"), checked by `pnpm lint`:
//   depcruise --config .dependency-cruiser.cjs packages/*/src examples/*/src
// Type-only imports count (tsPreCompilationDeps): a cycle closed by `import type` is still a cycle of
// meaning, and it is how core's cycles hid before.

const CORE = '^packages/tenant-auth-core/src/';
// Core's layers, bottom to top. A file's folder is its layer, and a layer imports only itself and the
// layers under it (docs/architecture.md, "The layers of core"). No file is an exception: what a lower
// layer needs moves down to a lower folder.
const LAYERS = [
  // The words every layer speaks: records, claims, errors, roles, the clock, ids, event and MFA shapes.
  'vocabulary',
  // What core asks of the outside world: the store contracts, the Mailer, the instrumentation hooks, the
  // logger, the rate-limit store, the identity-provider and DNS ports.
  'ports',
  // What the use cases are built from: tokens, passwords, rate limits, sealing, WebAuthn, the mail outbox,
  // the event log, the second-factor gate, recent authentication, inputs, authorization, session tokens.
  'mechanisms',
  // One folder per use case (accounts, members, sessions, ...); siblings never import each other.
  'use-cases',
  // createTenantAuth and the TenantAuth interface: the composition of the use cases over the services.
  'facade',
];
// Beside the layers: the in-memory stores, an adapter inside core that uses what an outside store adapter
// uses (the vocabulary and the ports), and the testing entry (conformance suites, test helpers), on top.
const MEMORY = `${CORE}memory/`;
const TESTING = `${CORE}testing/`;
// What a package outside core may import of it: its three entry points.
const CORE_ENTRY_POINTS = `${CORE}(index[.]ts|store-kit[.]ts|testing/index[.]ts)$`;
// Tests sit on top of everything they test; the layering rules do not look at them (cycles still do).
const TESTS = ['[.]test[.]ts$', '[.]test-d[.]ts$', TESTING];
const layer = (name) => `${CORE}${name}/`;
const above = (name) => LAYERS.slice(LAYERS.indexOf(name) + 1);

// Libraries core never imports (I/O, frameworks, ORMs, drivers, mail, metrics, network): adapters and
// the server bring them, behind core's ports. Matched as an installed path or as a bare module name.
const IO_LIBRARIES = [
  'koa',
  '@koa/[^/]+',
  'koa-[^/]+',
  '@mikro-orm/[^/]+',
  'pg',
  'pg-[^/]+',
  '@electric-sql/[^/]+',
  'ioredis',
  'redis',
  '@redis/[^/]+',
  'nodemailer',
  'prom-client',
  '@opentelemetry/[^/]+',
  'openid-client',
  'undici',
  'node-fetch',
  'axios',
  'express',
  'fastify',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle in any package, type-only imports included: layers point one way.',
      from: {},
      to: { circular: true },
    },
    // One rule per layer, so a violation names the layer it broke.
    ...LAYERS.slice(0, -1).map((name) => ({
      name: `core-${name}-points-down`,
      severity: 'error',
      comment:
        `core/src/${name}/ imports only ${LAYERS.slice(0, LAYERS.indexOf(name) + 1).join(', ')}: not a layer ` +
        'above it, the memory stores, the testing entry or an entry point. What a lower layer needs moves down.',
      from: { path: layer(name), pathNot: TESTS },
      to: { path: [`${CORE}(${above(name).join('|')}|memory|testing)/`, CORE_ENTRY_POINTS] },
    })),
    {
      name: 'core-use-cases-not-siblings',
      severity: 'error',
      comment:
        'A use-case folder (use-cases/<name>/) does not import another one: what two use cases share moves ' +
        'down to mechanisms/ (or vocabulary/, ports/); the facade composes them.',
      from: { path: `${CORE}use-cases/([^/]+)/`, pathNot: TESTS },
      to: { path: `${CORE}use-cases/`, pathNot: `${CORE}use-cases/$1/` },
    },
    {
      name: 'core-facade-under-entry-points',
      severity: 'error',
      comment: 'The facade composes the layers; it imports no entry point, nor the testing entry.',
      from: { path: layer('facade'), pathNot: TESTS },
      to: { path: [TESTING, CORE_ENTRY_POINTS] },
    },
    {
      name: 'core-memory-stores-are-an-adapter',
      severity: 'error',
      comment:
        'The in-memory stores implement the ports with the vocabulary, as an outside store adapter does: no ' +
        'mechanism, use case, facade or entry point.',
      from: { path: MEMORY, pathNot: TESTS },
      to: { path: [`${CORE}(mechanisms|use-cases|facade|testing)/`, CORE_ENTRY_POINTS] },
    },
    {
      name: 'core-files-in-layer-folders',
      severity: 'error',
      comment:
        'Every file of core is in a layer folder (vocabulary, ports, mechanisms, use-cases, facade), in ' +
        'memory/ or testing/, or is an entry point (index.ts, store-kit.ts): a new file says its layer by its folder.',
      from: { path: CORE },
      to: {
        path: CORE,
        pathNot: [`${CORE}(${[...LAYERS, 'memory', 'testing'].join('|')})/`, CORE_ENTRY_POINTS],
      },
    },
    {
      name: 'adapters-use-core-entry-points',
      severity: 'error',
      comment:
        'Every other package and every example imports core through its entry points only ' +
        "('tenant-auth-core', 'tenant-auth-core/store-kit', 'tenant-auth-core/testing'), never a file of it.",
      from: { path: '^(packages|examples)/[^/]+/', pathNot: '^packages/tenant-auth-core/' },
      to: { path: '^packages/tenant-auth-core/', pathNot: CORE_ENTRY_POINTS },
    },
    {
      name: 'core-imports-no-io-library',
      severity: 'error',
      comment:
        'Core imports no framework, ORM, driver, mail, metrics or network library: it defines ports ' +
        '(stores, Mailer, events) and the adapters or the server fill them.',
      from: { path: CORE },
      to: { path: `(^|/node_modules/)(${IO_LIBRARIES.join('|')})(/|$)` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    // The workspace's paths map each package name to its src entry, as tsc and vitest see them.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
