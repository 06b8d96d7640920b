import type Router from '@koa/router';
import type { Context } from 'koa';

/**
 * What the `onResponse` option of `createTenantAuthKoa` is told about each request answered under the prefix,
 * for request metrics. `route` is a template, never the raw path, so ids in paths cannot grow a
 * metric's label set.
 *
 * @example
 * const onResponse = (info: ResponseInfo) =>
 *   httpDuration.observe({ route: info.route, method: info.method, status: info.status }, info.durationSeconds);
 */
export interface ResponseInfo {
  /**
   * The template of the route that answered, prefix included (`/api/v1/sessions/:id`), also when the
   * request was refused before it ran (429, 415, a CORS preflight); an application's own `@koa/router`
   * route under the prefix is named by its template too. {@link UNMATCHED_ROUTE} when no route matched.
   */
  route: string;
  /** The request method (`GET`, `POST`, ...). */
  method: string;
  /** The status answered (after errors were turned into problem+json). */
  status: number;
  /** From the moment tenant-auth-koa saw the request until its answer was decided. */
  durationSeconds: number;
}

/**
 * The `route` of a request under the prefix that matched no route (a 404): one fixed value, whatever
 * the path.
 *
 * @example
 * if (info.route === UNMATCHED_ROUTE) notFound.inc();
 */
export const UNMATCHED_ROUTE = 'unmatched';

/** The `_matchedRoute` that `@koa/router` leaves on the context of a request one of its routes ran for. */
function routerMark(ctx: Context): string | undefined {
  const mark = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof mark === 'string' || mark instanceof RegExp ? String(mark) : undefined;
}

/**
 * @internal Measures a request under the prefix for `onResponse`: `start` before it is handled,
 * `finish` once its answer is decided. The template comes from the routes of tenant-auth's own router
 * that match the path (the one that ran, else the first: the answer of a refused request is labelled
 * with the route it was meant for), else from an application router that ran under the prefix.
 */
export function measureResponse(router: Router, ctx: Context): { finish(): ResponseInfo } {
  const started = performance.now();
  const markBefore = routerMark(ctx);
  return {
    finish() {
      const durationSeconds = (performance.now() - started) / 1000;
      return {
        route: routeOf(router, ctx, markBefore),
        method: ctx.method,
        status: ctx.status,
        durationSeconds,
      };
    },
  };
}

function routeOf(router: Router, ctx: Context, markBefore: string | undefined): string {
  const matched = router.match(ctx.path, ctx.method);
  const ours = (matched.pathAndMethod.length > 0 ? matched.pathAndMethod : matched.path)
    .filter((layer) => layer.methods.length > 0)
    .map((layer) => String(layer.path));
  const mark = routerMark(ctx);
  if (ours.length > 0) return mark !== undefined && ours.includes(mark) ? mark : (ours[0] as string);
  // One of the application's own routes under the prefix.
  if (mark !== undefined && mark !== markBefore) return mark;
  return UNMATCHED_ROUTE;
}
