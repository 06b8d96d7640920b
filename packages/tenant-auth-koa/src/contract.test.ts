import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES, problemSchema } from './contract.js';

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
