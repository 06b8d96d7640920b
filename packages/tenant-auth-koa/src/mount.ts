import type { ServerResponse } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { isTenantAuthError, type Logger, type RateLimitResult } from 'tenant-auth-core';
import { type BodyRule, bodyRuleOf, ruleKey } from './body-rules.js';
import {
  admit,
  type GuardSettings,
  knownApiKey,
  presentedApiKey,
  type Refuse,
  refuseApiKey,
} from './guards.js';
import type { Mount } from './operation-group.js';
import type { RouteSettings } from './operations/define.js';
import { logProblem, problemOf, problemOfStatus } from './problem.js';
import { type BodyReader, bodyReader } from './request-body.js';
import { requestIdOf } from './request-context.js';
import { type ResponseInfo, responseRoute, routeMark } from './response-hook.js';
import { createRouteTable, type RouteLookup } from './route-table.js';
import { createRoutes } from './routes.js';
import { answerUnrouted, recordLookup } from './routing-context.js';

/** @internal What every mounted group shares: the settings of `createTenantAuthKoa`. */
export interface MountSettings {
  routes: RouteSettings;
  guard: GuardSettings;
  /** CORS for the groups that take it (`undefined` with `cors: false`). */
  cors: Middleware | undefined;
  logger: Logger;
  securityHeaders: boolean;
  onResponse: ((info: ResponseInfo) => void) | undefined;
}

// The headers every request under a mount path gets are set on Node's response directly (Koa's `ctx.set`
// adds a layer of checks per header for values that are always strings); only before the answer is sent.

function setRateLimitHeaders(res: ServerResponse, result: RateLimitResult): void {
  if (res.headersSent) return;
  res.setHeader('RateLimit-Limit', String(result.limit));
  res.setHeader('RateLimit-Remaining', String(result.remaining));
  res.setHeader('RateLimit-Reset', String(result.resetSeconds));
}

function securityHeadersOn(res: ServerResponse): void {
  if (res.headersSent) return;
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/** `Vary: Origin`, as `ctx.vary('Origin')` adds it: set at once when the response has no `Vary` yet. */
function varyOnOrigin(ctx: Context): void {
  if (ctx.res.headersSent || ctx.res.hasHeader('vary')) ctx.vary('Origin');
  else ctx.res.setHeader('Vary', 'Origin');
}

/** One reader per distinct body rule of a group (most routes share the group's JSON rule). */
function bodyReaders(origins: ReadonlySet<string>): (rule: BodyRule) => BodyReader {
  const readers = new Map<string, BodyReader>();
  return (rule) => {
    const key = ruleKey(rule);
    let reader = readers.get(key);
    if (reader === undefined) {
      reader = bodyReader(rule, origins);
      readers.set(key, reader);
    }
    return reader;
  };
}

/**
 * @internal What serves the requests under one mount path (see `OperationGroup`), in order: a request id,
 * security headers, the group's error form for every failure below, CORS (where the group takes it), the
 * group's rate budget, the body by its route's rule (else the group's), the route's guard and handler,
 * else the application's own routes under the path, and `404`/`405` when nothing answered.
 */
export function serveMount(
  mount: Mount,
  settings: MountSettings,
): (ctx: Context, next: Next) => Promise<void> {
  const { group, path } = mount;
  const { routes: routeSettings, guard, logger, securityHeaders, onResponse } = settings;
  const { auth } = routeSettings;
  const cors = group.cors ? settings.cors : undefined;
  const readerOf = bodyReaders(guard.origins);
  const readDefault = readerOf(
    bodyRuleOf(undefined, { mediaTypes: group.mediaTypes, limitBytes: routeSettings.bodyLimitBytes }),
  );
  const table = createRouteTable(path, createRoutes(routeSettings, group, readerOf));
  const problemOfGroup = group.problemOf ?? problemOf;
  const refuse: Refuse = (ctx, err) => group.writeError(ctx, problemOfGroup(err), err);

  /** After CORS: the rate limit, the body, then our route, or the application's routes under the path. */
  const proceed = async (ctx: Context, found: RouteLookup, next: Next): Promise<void> => {
    // A key this process verified recently has a budget of its own (and is known to the guard below).
    let apiKey = knownApiKey(auth, ctx);
    const limited = await group.rateLimit(ctx, { strict: found.strict, apiKey }, routeSettings);
    if (limited) setRateLimitHeaders(ctx.res, limited);
    // A key it has not verified yet (its first request, or its cache entry expired), on a route that takes
    // keys: the address's budget above let the look-up through (so guessed keys stay behind it); the key,
    // once verified, counts against its own budget from this request on, not only once cached.
    let keyRefused: unknown;
    if (apiKey === undefined && !found.strict && found.route?.apiKeys === 'accepted') {
      const secret = presentedApiKey(ctx);
      if (secret !== undefined) {
        try {
          apiKey = await auth.verifyApiKey(secret);
          const ofKey = await group.rateLimit(ctx, { strict: found.strict, apiKey }, routeSettings);
          if (ofKey) setRateLimitHeaders(ctx.res, ofKey);
        } catch (err) {
          // A key that could not be verified (401 invalid_token, 503 unavailable): the guard's refusal,
          // answered where the guard would answer it; a key over its budget: 429 now.
          if (!isTenantAuthError(err) || apiKey !== undefined) throw err;
          keyRefused = err;
        }
      }
    }
    const reading = (found.route?.readBody ?? readDefault)(ctx);
    if (reading) await reading;
    recordLookup(ctx, found);
    const { route } = found;
    if (route === undefined) {
      await next();
      answerUnrouted(ctx, found);
      return;
    }
    // The guard of requireAuth(), then the handler; the guard answers a refusal itself.
    if (keyRefused !== undefined) {
      refuse(ctx, keyRefused);
      return;
    }
    const caller = route.authenticated
      ? await admit(auth, ctx, guard, { apiKeys: route.apiKeys === 'accepted', knownKey: apiKey }, refuse)
      : null;
    if (caller === undefined) return;
    if (caller === null && route.apiKeys === 'refused' && refuseApiKey(ctx, refuse)) return;
    if (caller !== null) ctx.state.auth = caller;
    const answering = route.handler(ctx);
    if (answering) await answering;
  };

  return async (ctx: Context, next: Next): Promise<void> => {
    const started = onResponse ? performance.now() : 0;
    const markBefore = onResponse ? routeMark(ctx) : undefined;
    const found = table.lookup(ctx.method, ctx.path);
    requestIdOf(ctx);
    if (securityHeaders) securityHeadersOn(ctx.res);
    try {
      if (cors === undefined) {
        await proceed(ctx, found, next);
      } else if (ctx.get('origin') === '') {
        // All @koa/cors does for a request without an Origin (most of them) is Vary: that, inline.
        varyOnOrigin(ctx);
        await proceed(ctx, found, next);
      } else {
        // @koa/cors around the rest: it answers a preflight, and its headers ride on an error passing back
        // through it (err.headers), over the error's own, as the error answer keeps them.
        await cors(ctx, () => proceed(ctx, found, next));
      }
      // Nothing answered (no route of ours or the application's), or routing left a bare 405.
      if (ctx.body == null && ctx.status >= 400)
        group.writeError(ctx, problemOfStatus(ctx.status), undefined);
    } catch (err) {
      const problem = problemOfGroup(err);
      logProblem(logger, ctx, err, problem);
      if (ctx.headerSent || !ctx.writable) return;
      group.writeError(ctx, problem, err);
    } finally {
      if (onResponse) {
        try {
          onResponse({
            route: responseRoute(found.template, ctx, markBefore),
            method: ctx.method,
            status: ctx.status,
            durationSeconds: (performance.now() - started) / 1000,
          });
        } catch {
          // Metrics must not break a response.
        }
      }
    }
  };
}

/**
 * @internal The one middleware over every mount: a request under a mount path is served by its group (the
 * longest path that holds it, so a group mounted below the prefix is not shadowed by it); any other
 * request passes straight through, untouched.
 */
export function mountsMiddleware(
  served: readonly { path: string; serve: (ctx: Context, next: Next) => Promise<void> }[],
  isUnder: (path: string, mountPath: string) => boolean,
): Middleware {
  const ordered = [...served].sort((a, b) => b.path.length - a.path.length);
  const [only] = ordered;
  if (ordered.length === 1 && only !== undefined) {
    return (ctx: Context, next: Next) => (isUnder(ctx.path, only.path) ? only.serve(ctx, next) : next());
  }
  return (ctx: Context, next: Next) => {
    for (const mount of ordered) if (isUnder(ctx.path, mount.path)) return mount.serve(ctx, next);
    return next();
  };
}
