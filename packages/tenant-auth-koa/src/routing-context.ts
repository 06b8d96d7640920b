// What routing leaves on the context, as `@koa/router`'s dispatch did, and the answer to a request that no
// route (ours or the application's) answered.
import type { Context } from 'koa';
import type { RouteLookup } from './route-table.js';

/** What `@koa/router` leaves on the context of a request under it; tenant-auth leaves the same for its routes. */
type RoutedContext = Context & {
  params: Record<string, string>;
  captures?: string[];
  matched?: { methods?: unknown }[];
  routeMatched?: boolean;
  routerPath?: string;
  routerName?: string | undefined;
  _matchedRoute?: string;
  _matchedRouteName?: string;
};

/**
 * @internal Records the lookup on the context as `@koa/router`'s dispatch did, for the middleware around tenant-auth
 * (metrics, logs) and the application's routers after it: the routes of the path in `ctx.matched` (added
 * to a list an earlier router started; the application's routers add theirs to it), and for the route
 * that answers its parameters (merged into earlier ones), captures, path and name.
 */
export function recordLookup(ctx: Context, found: RouteLookup): void {
  const routed = ctx as RoutedContext;
  if (Array.isArray(routed.matched)) routed.matched.push(...found.matched);
  else routed.matched = [...found.matched];
  routed.routeMatched = found.route !== undefined;
  const { route } = found;
  if (route === undefined) return;
  routed.captures = found.captures;
  const params = routed.params ? { ...routed.params, ...found.params } : found.params;
  (ctx.request as { params?: Record<string, string> }).params = params;
  routed.params = params;
  routed.routerPath = route.template;
  routed.routerName = route.name;
  routed._matchedRoute = route.template;
  if (route.name !== undefined) routed._matchedRouteName = route.name;
}

/** The methods `@koa/router` implements (any other is a 501 there, a 404 or 405 here). */
const IMPLEMENTED_METHODS: ReadonlySet<string> = new Set([
  'HEAD',
  'OPTIONS',
  'GET',
  'PUT',
  'PATCH',
  'POST',
  'DELETE',
]);

/**
 * @internal A request no route of ours answered, after the application's routes under the prefix had their turn:
 * what `@koa/router`'s `allowedMethods()` answered, over the routes of the path in `ctx.matched` (ours and
 * those of the application's routers): `OPTIONS` is `200` with `Allow`, another method of a known path
 * `405` with `Allow`; and a method nobody implements (`PROPFIND`, `PURGE`), which a router calls a server
 * fault (501), is the client's: `405` on a path we have, `404` on one we do not.
 */
export function answerUnrouted(ctx: Context, found: RouteLookup): void {
  const method = ctx.method.toUpperCase();
  if (ctx.status === 404) {
    const allowed = new Set<string>();
    const matched = (ctx as RoutedContext).matched;
    if (Array.isArray(matched)) {
      for (const layer of matched) {
        if (Array.isArray(layer?.methods)) for (const m of layer.methods) allowed.add(String(m));
      }
    }
    const list = [...allowed].join(', ');
    if (!IMPLEMENTED_METHODS.has(method)) {
      ctx.status = 501;
      ctx.set('Allow', list);
    } else if (allowed.size > 0 && method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = '';
      ctx.set('Allow', list);
    } else if (allowed.size > 0 && !allowed.has(method)) {
      ctx.status = 405;
      ctx.set('Allow', list);
    }
  }
  if (ctx.status === 501 && ctx.body == null) {
    if (found.allowed.length === 0) {
      ctx.status = 404;
    } else {
      ctx.status = 405;
      ctx.set('Allow', found.allowed.join(', '));
    }
  }
}
