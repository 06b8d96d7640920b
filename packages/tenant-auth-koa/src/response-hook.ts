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

/** @internal The `_matchedRoute` that `@koa/router` (and tenant-auth, for its own routes) leaves on the context of a request a route ran for. */
export function routeMark(ctx: Context): string | undefined {
  const mark = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof mark === 'string' || mark instanceof RegExp ? String(mark) : undefined;
}

/**
 * @internal The `route` of a request under the prefix: the template of tenant-auth's route for its path
 * (the one that ran, else the first of the path: the answer of a refused request is labelled with the
 * route it was meant for), else the route of an application router that ran under the prefix (a mark
 * that was not there before, `markBefore`), else {@link UNMATCHED_ROUTE}.
 */
export function responseRoute(
  template: string | undefined,
  ctx: Context,
  markBefore: string | undefined,
): string {
  if (template !== undefined) return template;
  const mark = routeMark(ctx);
  return mark !== undefined && mark !== markBefore ? mark : UNMATCHED_ROUTE;
}
