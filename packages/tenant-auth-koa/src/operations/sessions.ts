import { fieldError, validationError } from 'tenant-auth-core';
import { revokedCountSchema, sessionListSchema } from '../http-contract.js';
import { requestContext } from '../request-context.js';
import { toSessionJson } from '../serialize.js';
import { defineOperation } from './define.js';

/** @internal The caller's sessions. */
export const SESSION_OPERATIONS = [
  defineOperation({
    id: 'listSessions',
    method: 'GET',
    path: '/sessions',
    caller: 'access',
    budget: 'general',
    tag: 'sessions',
    summary: "The caller's active sessions.",
    success: {
      status: 200,
      body: sessionListSchema,
      description: "Active sessions, the caller's own marked `current`.",
    },
    handler: async ({ caller }, { auth }) => ({
      sessions: (await auth.listSessions(caller)).map(toSessionJson),
    }),
  }),
  defineOperation({
    id: 'revokeSession',
    method: 'DELETE',
    path: '/sessions/:id',
    caller: 'access',
    budget: 'general',
    tag: 'sessions',
    summary: "Revoke one of the caller's sessions; it can no longer refresh.",
    params: { id: 'Session id.' },
    success: { status: 204, description: 'Revoked.' },
    problems: ['not_found'],
    handler: async ({ ctx, caller, params }, { auth }) => {
      await auth.revokeSession(caller, params.id, requestContext(ctx));
    },
  }),
  defineOperation({
    id: 'revokeAllSessions',
    method: 'DELETE',
    path: '/sessions',
    caller: 'access',
    budget: 'general',
    tag: 'sessions',
    summary: "Revoke all of the caller's sessions.",
    query: 'revokeAllSessionsQuery',
    success: { status: 200, body: revokedCountSchema, description: 'How many sessions were revoked.' },
    handler: async ({ ctx, caller, query }, { auth }) => {
      const { except } = query;
      if (except !== undefined && except !== 'current') {
        throw validationError([fieldError('except', 'invalid_value', "except must be 'current'.")]);
      }
      const exceptCurrent = except === 'current';
      return { revoked: await auth.revokeAllSessions(caller, { exceptCurrent }, requestContext(ctx)) };
    },
  }),
];
