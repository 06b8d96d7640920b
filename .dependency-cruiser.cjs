// The import rules of the workspace (ARCHITECTURE.md, "Core" and "Layout"), checked by `pnpm lint`:
//   depcruise --config .dependency-cruiser.cjs packages/*/src examples/*/src
// Type-only imports count (tsPreCompilationDeps): a cycle closed by `import type` is still a cycle of
// meaning, and it is how core's cycles hid before.

const CORE = '^packages/tenant-auth-core/src/';
// The top of core: the facade (with its facade-*.ts parts) and the entry points. Nothing below may import them.
const FACADE = `${CORE}(create-tenant-auth|facade-[a-z-]+|tenant-auth|index|store-kit)[.]ts$`;
// Use cases, by folder; siblings never import each other.
const USE_CASE_FOLDERS = 'accounts|members|sessions|audit|mfa|passkeys|sso|api-keys';
// Modules inside use-case folders that are lower layers, shared by every use case: the input rules,
// the roles, the session mechanisms (tokens of a session, the active-session cache), and the second
// factor's mechanisms (TOTP, recovery codes, its types, and the gate a first factor passes through).
const SHARED_IN_USE_CASE_FOLDERS = [
  `${CORE}accounts/inputs[.]ts$`,
  `${CORE}members/roles[.]ts$`,
  `${CORE}sessions/session-tokens[.]ts$`,
  `${CORE}sessions/active-session-cache[.]ts$`,
  `${CORE}mfa/(totp|recovery-codes|mfa-types|second-factor-gate)[.]ts$`,
  // Single sign-on's ports, types and option check, domain names, and the "held to SSO" check that
  // password and passkey sign-ins call.
  `${CORE}sso/(sso-ports|sso-types|sso-options|sso-hold|domain-names)[.]ts$`,
];
// Tests sit on top of everything they test; the layering rules do not look at them (cycles still do).
const TESTS = ['[.]test[.]ts$', '[.]test-d[.]ts$', `${CORE}test-helpers[.]ts$`, `${CORE}testing/`];
// What a package outside core may import of it: its three entry points.
const CORE_ENTRY_POINTS = `${CORE}(index[.]ts|store-kit[.]ts|testing/index[.]ts)$`;
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
    {
      name: 'core-facade-on-top',
      severity: 'error',
      comment:
        'Nothing in core below the facade imports it (create-tenant-auth.ts, its facade-*.ts parts, tenant-auth.ts) or an entry ' +
        'point: a shared type goes down to claims.ts, records.ts or the use case that owns it.',
      from: { path: CORE, pathNot: [FACADE, ...TESTS] },
      to: { path: FACADE },
    },
    {
      name: 'core-use-cases-not-siblings',
      severity: 'error',
      comment:
        'A use-case folder (accounts, members, sessions, audit, mfa, passkeys, sso, api-keys) does not import another one: what two ' +
        'use cases share moves down (errors.ts, accounts/inputs.ts, members/roles.ts, authorization.ts).',
      from: { path: `${CORE}(${USE_CASE_FOLDERS})/`, pathNot: TESTS },
      to: {
        path: `${CORE}(${USE_CASE_FOLDERS})/`,
        pathNot: [`${CORE}$1/`, ...SHARED_IN_USE_CASE_FOLDERS],
      },
    },
    {
      name: 'core-mechanisms-not-use-cases',
      severity: 'error',
      comment:
        'The layers under the use cases (records, errors, ports, mechanisms) do not import a use case; ' +
        'only the facade composes them.',
      from: { path: CORE, pathNot: [FACADE, `${CORE}(${USE_CASE_FOLDERS})/`, ...TESTS] },
      to: { path: `${CORE}(${USE_CASE_FOLDERS})/`, pathNot: SHARED_IN_USE_CASE_FOLDERS },
    },
    {
      name: 'adapters-use-core-entry-points',
      severity: 'error',
      comment:
        'Adapters, the client and the examples import core through its entry points only ' +
        "('tenant-auth-core', 'tenant-auth-core/store-kit', 'tenant-auth-core/testing'), never a file of it.",
      from: { path: '^(packages/tenant-auth-(koa|mikro-orm|redis|client)|examples/[^/]+)/' },
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
