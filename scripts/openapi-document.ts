// The OpenAPI document of tenant-auth's routes, built by tenant-auth-koa's `buildOpenApiDocument` from its
// operation table (packages/tenant-auth-koa/src/operations/), with the defaults of a `TenantAuth` (its
// password policy and input limits) and of `createTenantAuthKoa` (prefix `/api/v1`, development cookie
// names, `/health` on): what the reference server serves at `/api/v1/openapi.json`. Run from the sources
// with tsx, so no build is needed.
//
//   pnpm exec tsx scripts/openapi-document.ts [out.json]     # default: dist/openapi.json
//
// `pnpm openapi:lint` writes it and lints it with Redocly; the client package generates its types from it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryStores, createTenantAuth } from '../packages/tenant-auth-core/src/index.js';
import { resolveCookieOptions } from '../packages/tenant-auth-koa/src/cookies.js';
import { buildOpenApiDocument } from '../packages/tenant-auth-koa/src/openapi.js';

const quiet = { error: () => {}, warn: () => {}, info: () => {} };

/**
 * The document, as a plain object.
 *
 * @example
 * const document = referenceOpenApiDocument();
 */
export function referenceOpenApiDocument(): Record<string, unknown> {
  // Only `inputLimits` is read: the secrets are placeholders and nothing is stored.
  const auth = createTenantAuth({
    stores: createMemoryStores(),
    accessToken: { secret: 'openapi-document-placeholder-secret-0123456789' },
    refreshSecret: 'openapi-document-placeholder-refresh-0123456789',
    logger: quiet,
  });
  const prefix = '/api/v1';
  return buildOpenApiDocument({
    prefix,
    cookies: resolveCookieOptions({}, prefix, false),
    limits: auth.inputLimits,
    health: true,
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? 'dist/openapi.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(referenceOpenApiDocument(), null, 2)}\n`);
  console.log(`openapi: wrote ${out}`);
}
