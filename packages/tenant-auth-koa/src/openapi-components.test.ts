import { createMemoryStores, createTenantAuth } from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveCookieOptions } from './cookies.js';
import { roleSchema, tokenResponseSchema } from './http-contract.js';
import { buildOpenApiDocument } from './openapi.js';
import { idOf, namedSchemas } from './openapi-components.js';
import { defineOperation, type Operation } from './operations/define.js';
import { OPERATIONS } from './operations/index.js';

/*
 * The components of the document are derived from the operations (what they answer and take, and the
 * problem), never listed: an operation added brings its schemas, one removed takes them away.
 */

const quiet = { error: () => {}, warn: () => {}, info: () => {} };
const { inputLimits } = createTenantAuth({
  stores: createMemoryStores(),
  accessToken: { secret: 'components-test-secret-components-test-0123' },
  refreshSecret: 'components-test-refresh-components-test-0123',
  logger: quiet,
});

// biome-ignore lint/suspicious/noExplicitAny: the document is read freely
type Doc = any;

function documentOf(operations: readonly Operation[]): Doc {
  return buildOpenApiDocument({
    prefix: '/api/v1',
    cookies: resolveCookieOptions({}, '/api/v1', false),
    limits: inputLimits,
    health: true,
    operations,
  });
}

/** The names of the components reachable from the paths and the shared responses, through `$ref`s. */
function reachable(doc: Doc): Set<string> {
  const seen = new Set<string>();
  const pending = [JSON.stringify(doc.paths), JSON.stringify(doc.components.responses)];
  while (pending.length > 0) {
    for (const [, name] of (pending.pop() as string).matchAll(/"#\/components\/schemas\/(\w+)"/g)) {
      if (name === undefined || seen.has(name)) continue;
      seen.add(name);
      pending.push(JSON.stringify(doc.components.schemas[name] ?? {}));
    }
  }
  return seen;
}

const partSchema = z.object({ at: z.string() }).meta({ id: 'ProbePart' });
const probeSchema = z.object({ part: partSchema, role: roleSchema }).meta({ id: 'Probe' });
const probe = defineOperation({
  id: 'probe',
  method: 'GET',
  path: '/probe',
  caller: 'access',
  budget: 'general',
  tag: 'meta',
  summary: 'A probe.',
  success: { status: 200, body: probeSchema, description: 'The probe.' },
  handler: () => ({ part: { at: 'now' }, role: 'member' as const }),
});

describe('the components of the OpenAPI document', () => {
  it('are exactly what the paths refer to, each of them there', () => {
    const doc = documentOf(OPERATIONS);
    expect(Object.keys(doc.components.schemas).sort()).toEqual([...reachable(doc)].sort());
  });

  it('follow the operations: one added brings its schemas, nested ones first', () => {
    const doc = documentOf([...OPERATIONS, probe]);
    const names = Object.keys(doc.components.schemas);
    expect(names).toContain('Probe');
    expect(names.indexOf('ProbePart')).toBeLessThan(names.indexOf('Probe'));
    expect(doc.components.schemas.Probe.properties.part).toEqual({ $ref: '#/components/schemas/ProbePart' });
    expect(names.sort()).toEqual([...reachable(doc)].sort());
  });

  it('follow the operations: one removed takes the schemas only it answered', () => {
    const withoutJwks = OPERATIONS.filter((operation) => operation.id !== 'jwks');
    const names = Object.keys(documentOf(withoutJwks).components.schemas);
    expect(names).not.toContain('Jwks');
    expect(names).not.toContain('Jwk');
    expect(names).toContain('Problem');
  });
});

describe('namedSchemas', () => {
  it('lists each named schema once, after the named schemas it is made of', () => {
    const ids = namedSchemas([tokenResponseSchema, tokenResponseSchema.shape.user]).map(idOf);
    expect(ids).toEqual([...new Set(ids)]);
    expect(ids.indexOf('Role')).toBeLessThan(ids.indexOf('User'));
    expect(ids.indexOf('User')).toBeLessThan(ids.indexOf('TokenResponse'));
    expect(ids.at(-1)).toBe('TokenResponse');
  });
});
