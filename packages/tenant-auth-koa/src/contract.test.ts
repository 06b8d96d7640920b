import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ACTOR_TYPES,
  AUDIT_EVENT_TYPES,
  AUTH_METHODS,
  ERROR_CODES,
  FIELD_ERROR_CODES,
  MFA_METHODS,
  ROLES,
} from 'tenant-auth-core';
import { describe, expect, it } from 'vitest';
import {
  actorTypeSchema,
  amrSchema,
  auditEventTypeSchema,
  fieldErrorCodeSchema,
  mfaMethodSchema,
  PROBLEM_CODES,
  problemSchema,
  roleSchema,
} from './contract.js';

/** Runtime imports of a module and, through relative ones, of everything it loads. */
function runtimeImports(file: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(file)) return found;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, what, from] of text.matchAll(/^(?:import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm)) {
    if (what) continue; // `import type` and `export type` leave nothing at run time
    if (from?.startsWith('.')) {
      const target = join(dirname(file), from.replace(/\.js$/, '.ts'));
      for (const inner of runtimeImports(target, seen)) found.add(inner);
    } else if (from) {
      found.add(from);
    }
  }
  return found;
}

describe('tenant-auth-koa/contract', () => {
  it('loads nothing but zod at run time, so a browser or a client package can use it', () => {
    const entry = join(dirname(fileURLToPath(import.meta.url)), 'contract.ts');
    expect([...runtimeImports(entry)]).toEqual(['zod']);
  });

  it("lists core's enumerations as core does, in its order (core's arrays are their one source)", () => {
    expect(roleSchema.options).toEqual([...ROLES]);
    expect(auditEventTypeSchema.options).toEqual([...AUDIT_EVENT_TYPES]);
    expect(fieldErrorCodeSchema.options).toEqual([...FIELD_ERROR_CODES]);
    expect(amrSchema.element.options).toEqual([...AUTH_METHODS]);
    expect(mfaMethodSchema.options).toEqual([...MFA_METHODS]);
    expect(actorTypeSchema.options).toEqual([...ACTOR_TYPES]);
    // The problem codes: core's codes that reach a client, in core's order, and the HTTP layer's two.
    const serverOnly = ['email_taken', 'slug_taken', 'invalid_configuration'];
    expect(PROBLEM_CODES.filter((code) => code !== 'method_not_allowed' && code !== 'http_error')).toEqual(
      ERROR_CODES.filter((code) => !serverOnly.includes(code)),
    );
  });

  it('types a problem code as the closed union', () => {
    const problem = problemSchema.parse({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      code: 'invalid_token',
      detail: 'The token is missing, invalid or expired.',
    });
    const code: (typeof PROBLEM_CODES)[number] = problem.code;
    expect(PROBLEM_CODES).toContain(code);
    expect(() => problemSchema.parse({ ...problem, code: 'made_up' })).toThrow();
  });
});
