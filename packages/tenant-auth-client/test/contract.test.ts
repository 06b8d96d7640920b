import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  auditEventSchema,
  fieldErrorSchema,
  invitationSchema,
  memberSchema,
  problemSchema,
  publicUserSchema,
  registerResponseSchema,
  requestSchemas,
  sessionSchema,
  tenantSchema,
  tokenResponseSchema,
} from 'tenant-auth-koa/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { CONTRACT_FILE, generateContract } from '../scripts/generate-contract.js';
import type {
  AuditEvent,
  FieldError,
  Invitation,
  LoginRequest,
  Member,
  Problem,
  RegisterRequest,
  RegisterResponse,
  Session,
  Tenant,
  TokenResponse,
  User,
} from '../src/index.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '../src');

/** Runtime imports of a module and, through relative ones, of everything it loads. */
function runtimeImports(file: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(file)) return found;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, what, from] of text.matchAll(/^(?:import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gm)) {
    if (what) continue;
    if (from?.startsWith('.')) {
      for (const inner of runtimeImports(join(dirname(file), from.replace(/\.js$/, '.ts')), seen))
        found.add(inner);
    } else if (from) {
      found.add(from);
    }
  }
  return found;
}

describe('the contract of the client', () => {
  it('is generated from the OpenAPI document: regenerating it changes nothing', () => {
    const committed = readFileSync(CONTRACT_FILE, 'utf8');
    expect(generateContract() === committed, 'run `pnpm --filter tenant-auth-client generate`').toBe(true);
  }, 60_000);

  it('loads nothing at run time but @simplewebauthn/browser (passkeys): no zod, no Koa, no tenant-auth-koa', () => {
    expect([...runtimeImports(join(src, 'index.ts'))]).toEqual(['@simplewebauthn/browser']);
  });

  it('has the types of the zod schemas the server answers with', () => {
    expectTypeOf<User>().toEqualTypeOf<z.output<typeof publicUserSchema>>();
    expectTypeOf<Tenant>().toEqualTypeOf<z.output<typeof tenantSchema>>();
    expectTypeOf<TokenResponse>().toEqualTypeOf<z.output<typeof tokenResponseSchema>>();
    expectTypeOf<RegisterResponse>().toMatchTypeOf<z.output<typeof registerResponseSchema>>();
    expectTypeOf<z.output<typeof registerResponseSchema>>().toMatchTypeOf<RegisterResponse>();
    expectTypeOf<Session>().toEqualTypeOf<z.output<typeof sessionSchema>>();
    expectTypeOf<Member>().toEqualTypeOf<z.output<typeof memberSchema>>();
    expectTypeOf<Invitation>().toEqualTypeOf<z.output<typeof invitationSchema>>();
    expectTypeOf<AuditEvent>().toEqualTypeOf<z.output<typeof auditEventSchema>>();
    expectTypeOf<FieldError>().toEqualTypeOf<z.output<typeof fieldErrorSchema>>();
    expectTypeOf<Problem>().toEqualTypeOf<z.output<typeof problemSchema>>();
    type Requests = ReturnType<typeof requestSchemas>;
    expectTypeOf<RegisterRequest>().toMatchTypeOf<z.input<Requests['register']>>();
    expectTypeOf<z.input<Requests['register']>>().toMatchTypeOf<RegisterRequest>();
    expectTypeOf<LoginRequest>().toMatchTypeOf<z.input<Requests['login']>>();
    expectTypeOf<z.input<Requests['login']>>().toMatchTypeOf<LoginRequest>();
  });
});
