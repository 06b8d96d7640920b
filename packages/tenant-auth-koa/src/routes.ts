import type { Context } from 'koa';
import { fieldError, validationError } from 'tenant-auth-core';
import { type BodyRule, bodyRuleOf } from './body-rules.js';
import { requestSchemas } from './http-contract.js';
import { API_GROUP, type OperationGroup } from './operation-group.js';
import type { Operation, RouteSettings } from './operations/define.js';
import { isServed } from './operations/index.js';
import { type BodyReader, bodyReader, requestBody } from './request-body.js';
import type { RouteDefinition } from './route-table.js';

export type { RouteSettings } from './operations/define.js';

/** The JSON body as an object of unknown values; core validates each value. */
function bodyOf(ctx: Context): Record<string, unknown> {
  const body = requestBody(ctx);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError([fieldError('body', 'invalid_type', 'The body must be a JSON object.')]);
  }
  return body as Record<string, unknown>;
}

/** The fields named, as sent (absent ones `undefined`). */
function pick(body: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field] = body[field];
  return out;
}

/** Each parameter named as a string, `undefined` when absent; repeated parameters are refused. */
function queryOf(ctx: Context, names: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of names) {
    const value = ctx.query[name];
    if (value !== undefined && typeof value !== 'string') {
      throw validationError([fieldError(name, 'invalid_value', `${name} must be given once.`)]);
    }
    out[name] = value;
  }
  return out;
}

/** `Cache-Control` of a successful answer, on Node's response directly (before it is sent). */
function cacheControl(ctx: Context, cache: Operation['cache']): void {
  if (cache === 'none' || ctx.res.headersSent) return;
  ctx.res.setHeader('Cache-Control', cache === 'public' ? 'public, max-age=300' : 'no-store');
}

/** What a group's routes share: the names of a schema's fields, the reader of a body rule, the group. */
interface RouteKit {
  fields: FieldNames;
  readBody: (operation: Operation) => BodyReader;
  /** The `Content-Type` of the group's JSON answers, when not Koa's `application/json`. */
  answerType: string | undefined;
}

/**
 * @internal An operation as a route: what it reads of the request (worked out here, once), its
 * handler, and its answer of success.
 */
function routeOf(operation: Operation, settings: RouteSettings, kit: RouteKit): RouteDefinition {
  const { fields, answerType } = kit;
  const { method, path, success, cache } = operation;
  const bodyFields =
    operation.body === undefined || operation.bodyOptional ? undefined : fields(operation.body);
  const queryNames = operation.query === undefined ? undefined : fields(operation.query);
  const inputOf = (ctx: Context) => ({
    ctx: ctx as Parameters<Operation['handler']>[0]['ctx'],
    params: ctx.params,
    caller: ctx.state.auth,
    body: bodyFields && pick(bodyOf(ctx), bodyFields),
    query: queryNames && queryOf(ctx, queryNames),
  });
  // The input's types are the operation's (define.ts): erased in this list of every operation.
  const handle = operation.handler as (
    input: ReturnType<typeof inputOf>,
    settings: RouteSettings,
  ) => Promise<unknown> | unknown;
  const handler: RouteDefinition['handler'] = operation.answersItself
    ? (ctx) => handle(inputOf(ctx), settings) as Promise<void> | void
    : async (ctx) => {
        const input = inputOf(ctx);
        cacheControl(ctx, cache);
        const answer = await handle(input, settings);
        if (success.body !== undefined) {
          ctx.body = answer;
          if (answerType !== undefined) ctx.type = answerType;
        }
        ctx.status = success.status;
      };
  const strict = operation.budget === 'strict';
  const authenticated =
    operation.guarded?.(settings) ?? (operation.caller === 'access' || operation.caller === 'admin');
  const apiKeys = operation.apiKeys
    ? 'accepted'
    : operation.caller === 'none' && !path.startsWith('/auth/')
      ? 'ignored'
      : 'refused';
  const readBody = kit.readBody(operation);
  const definition: RouteDefinition = { method, path, strict, authenticated, apiKeys, readBody, handler };
  // The routes named before 1.2 are the strict ones (their names made the strict list): naming every
  // route would change what `ctx._matchedRouteName` and `ctx.matched` show the application.
  return strict ? { ...definition, name: operation.id } : definition;
}

type FieldNames = (schema: NonNullable<Operation['body'] | Operation['query']>) => readonly string[];

/**
 * @internal The routes of a group's operations (operations/ for the API group), in its order (the first
 * that matches a request answers it), paths below its mount path. Bodies are read before, by each
 * operation's rule (`readerOf` makes the reader of a rule; JSON by default); every value is validated
 * by core. Called once, when the middleware is created.
 */
export function createRoutes(
  settings: RouteSettings,
  group: OperationGroup = API_GROUP,
  readerOf: (rule: BodyRule) => BodyReader = (rule) => bodyReader(rule, settings.origins),
): RouteDefinition[] {
  const schemas = requestSchemas(settings.auth.inputLimits);
  const [answerType] = group.mediaTypes;
  const kit: RouteKit = {
    fields: (name) => Object.keys(schemas[name].shape),
    readBody: (operation) =>
      readerOf(
        bodyRuleOf(operation.request, { mediaTypes: group.mediaTypes, limitBytes: settings.bodyLimitBytes }),
      ),
    answerType: answerType === 'application/json' ? undefined : answerType,
  };
  return group.operations
    .filter((operation) => isServed(operation, { health: settings.health !== undefined }))
    .map((operation) => routeOf(operation, settings, kit));
}
