import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { TenantAuthError } from 'tenant-auth-core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { type ProblemDetails, problemOf, writeProblem } from './problem.js';
import { problemSchema } from './problem-contract.js';

describe('problemOf', () => {
  it('answers email_not_verified as 403 with its own code (docs/http-api.md, "Errors added in 1.2"), not as an internal error', () => {
    const problem = problemOf(new TenantAuthError('email_not_verified', 'Verify your email address first.'));
    expect(problem).toMatchObject({ status: 403, code: 'email_not_verified', unexpected: false });
  });
});

describe('ProblemDetails', () => {
  it("is the contract's problemSchema output: every member, passkey among the methods", () => {
    // A hand-written copy of the members (1.2's lacked `passkey` in `methods`) fails to compile here.
    expectTypeOf<ProblemDetails>().toEqualTypeOf<z.output<typeof problemSchema>>();
    const body: ProblemDetails = {
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      code: 'mfa_required',
      detail: 'A second factor is required.',
      mfaToken: 'opaque',
      methods: ['totp', 'passkey'],
      expiresIn: 300,
    };
    expect(problemSchema.parse(body)).toEqual(body);
  });

  it('is what writeProblem answers, extension members included', () => {
    const req = new IncomingMessage(new Socket());
    req.method = 'POST';
    req.url = '/api/v1/auth/login';
    const ctx = new Koa().createContext(req, new ServerResponse(req));
    const extensions = { mfaToken: 'opaque', methods: ['passkey'], expiresIn: 300 };
    writeProblem(
      ctx,
      problemOf(new TenantAuthError('mfa_required', 'A second factor is required.', { extensions })),
    );
    const written: ProblemDetails = problemSchema.parse(JSON.parse(ctx.body as string));
    expect(written).toMatchObject({ status: 401, code: 'mfa_required', ...extensions });
  });
});
