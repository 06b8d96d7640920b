import { randomUUID } from 'node:crypto';
import Koa, { type Middleware } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantAuthKoa } from '../src/index.js';
import { checkAnswers } from './answer-check.js';
import { createTestAuth, listen, PASSWORD, quiet, type Running, uniqueEmail } from './helpers.js';

/*
 * The check every koa test runs on tenant-auth's answers (answer-check.ts) catches a handler that
 * answers what its operation does not declare: here a middleware between the check and tenant-auth
 * spoils the answers, as a wrong handler would.
 */

const reports: string[][] = [];
let running: Running;
let accessToken: string;

/** Spoils the answer as the `x-spoil` header says, after tenant-auth answered. */
const spoil: Middleware = async (ctx, next) => {
  await next();
  const how = ctx.get('x-spoil');
  if (how === 'status') ctx.status = 418;
  if (how === 'field') ctx.body = { ...(ctx.body as object), secret: 'x' };
  if (how === 'missing') {
    const { createdAt: _createdAt, ...rest } = ctx.body as Record<string, unknown>;
    ctx.body = rest;
  }
  if (how === 'code') ctx.body = (ctx.body as string).replace('"not_found"', '"last_owner"');
  if (how === 'empty') ctx.status = 204;
};

beforeAll(async () => {
  const { auth } = createTestAuth();
  const tenantAuth = createTenantAuthKoa({ auth, logger: quiet });
  const inner = tenantAuth.middleware();
  const app = new Koa();
  app.use(
    checkAnswers(
      tenantAuth.openapiDocument,
      (ctx, next) => spoil(ctx, () => inner(ctx, next)),
      (problems) => reports.push(problems),
    ),
  );
  running = await listen(app);
  ({ accessToken } = await auth.register({ email: uniqueEmail(), password: PASSWORD }));
});

afterAll(() => running?.close());

async function reportOf(path: string, spoilt: string): Promise<string> {
  reports.length = 0;
  const headers: Record<string, string> = { authorization: `Bearer ${accessToken}` };
  if (spoilt !== '') headers['x-spoil'] = spoilt;
  await (await fetch(`${running.url}/api/v1${path}`, { headers })).text();
  return reports.flat().join('\n');
}

describe('the check of every answer against its operation', () => {
  it('passes the answers as tenant-auth gives them', async () => {
    expect(await reportOf('/tenants/me', '')).toBe('');
    expect(await reportOf(`/tenants/${randomUUID()}`, '')).toBe('');
  });

  it('catches a status the operation does not declare', async () => {
    expect(await reportOf('/tenants/me', 'status')).toMatch(
      /status 418 is not documented for GET \/tenants\/me/,
    );
    expect(await reportOf('/tenants/me', 'empty')).toMatch(/status 204 is not documented/);
  });

  it('catches a body of another shape: a field more, a field less', async () => {
    expect(await reportOf('/tenants/me', 'field')).toMatch(/secret is not in the schema/);
    expect(await reportOf('/tenants/me', 'missing')).toMatch(/must have required property 'createdAt'/);
  });

  it('catches a problem code the operation does not declare, though its status is declared', async () => {
    expect(await reportOf(`/tenants/${randomUUID()}`, 'code')).toMatch(
      /getTenant does not declare the code last_owner/,
    );
  });
});
