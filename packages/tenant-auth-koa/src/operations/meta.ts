import type { Context } from 'koa';
import type { z } from 'zod';
import { healthSchema, jwksSchema } from '../http-contract.js';
import { defineOperation, type RouteSettings } from './define.js';

type JwkJson = z.output<typeof jwksSchema>['keys'][number];

// The two answers of `/health`, serialised once.
const HEALTHY = JSON.stringify({ status: 'ok', database: 'ok' });
const DEGRADED = JSON.stringify({ status: 'degraded', database: 'unavailable' });

function answerHealth(ctx: Context, ok: boolean, retryAfterSeconds: number): void {
  if (!ctx.res.headersSent) ctx.res.setHeader('Cache-Control', 'no-store');
  if (!ok) ctx.set('Retry-After', String(retryAfterSeconds));
  ctx.status = ok ? 200 : 503;
  ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
  ctx.body = ok ? HEALTHY : DEGRADED;
}

/** @internal Keys, the OpenAPI document, health. */
export const META_OPERATIONS = [
  defineOperation({
    id: 'jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    caller: 'none',
    budget: 'general',
    tag: 'meta',
    summary: 'Public keys of the access-token signer (empty for HMAC).',
    success: { status: 200, body: jwksSchema, description: 'The JSON Web Key Set.' },
    canBeUnavailable: false,
    cache: 'public',
    // Core types a key loosely (`Record<string, unknown>`); each is a JWK, with its `kty`.
    handler: async (_input, { auth }) => ({ keys: (await auth.jwks()).keys as JwkJson[] }),
  }),
  defineOperation({
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    caller: 'none',
    budget: 'general',
    tag: 'meta',
    summary: 'This document.',
    success: {
      status: 200,
      description: 'The OpenAPI 3.1 document.',
      jsonSchema: {
        type: 'object',
        properties: {
          openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
          info: { type: 'object' },
          paths: { type: 'object' },
        },
        required: ['openapi', 'info', 'paths'],
        additionalProperties: true,
      },
    },
    canBeUnavailable: false,
    cache: 'none',
    answersItself: true,
    handler: ({ ctx }, { openapiJson }) => {
      ctx.type = 'application/json';
      ctx.body = openapiJson;
    },
  }),
  defineOperation({
    id: 'health',
    method: 'GET',
    path: '/health',
    caller: 'access',
    apiKeys: true,
    budget: 'general',
    tag: 'meta',
    summary: 'Service and database health.',
    success: { status: 200, body: healthSchema, description: '`{"status":"ok","database":"ok"}`.' },
    moreResponses: ({ ref, headers }) => ({
      '503': {
        description:
          '`{"status":"degraded","database":"unavailable"}` when the database does not answer; a problem (`unavailable`) when the rate-limit store does not.',
        headers: { ...headers.noStore, ...headers.retryAfter },
        content: {
          'application/json': { schema: ref('Health') },
          'application/problem+json': { schema: ref('Problem') },
        },
      },
    }),
    onlyWith: 'health',
    guarded: (settings: RouteSettings) => settings.health?.requireAuth === true,
    answersItself: true,
    // The answer of the last ping while it is fresh, at once; otherwise after the ping.
    handler: ({ ctx }, { health }) => {
      if (health === undefined) return;
      const known = health.fresh();
      if (known !== undefined) return answerHealth(ctx, known, health.retryAfterSeconds);
      return health.check().then((ok) => answerHealth(ctx, ok, health.retryAfterSeconds));
    },
  }),
];
