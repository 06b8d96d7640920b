import type { Context } from 'koa';

/** @internal A route of tenant-auth's own, as `createRoutes` declares it. */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below the prefix, with `:name` parameters of one whole segment each: `/sessions/:id`. */
  path: string;
  /** Its name, for the routes that have one (the OpenAPI operation id). */
  name?: string;
  /** Whether requests to it count against the `strict` budget (it checks credentials or creates accounts). */
  strict: boolean;
  /** Whether it requires an access token (checked as `requireAuth()` does, before the handler). */
  authenticated: boolean;
  /** Answers the request (a promise when it has to wait); never calls on. */
  handler: (ctx: Context) => Promise<void> | void;
}

/** @internal A route ready to match. */
export interface Route extends RouteDefinition {
  /** The template, prefix included: what metrics and `ctx._matchedRoute` show. */
  template: string;
  /** The methods it answers: a GET route answers HEAD too. */
  methods: readonly string[];
}

/** @internal What the table says of one request. */
export interface RouteLookup {
  /** The route that answers the request: the first added that matches its path and method. */
  route: Route | undefined;
  /** The decoded parameters of `route` (a fresh object per lookup). */
  params: Record<string, string>;
  /** The template of `route`, else of the first route of the path (whatever its method), else undefined. */
  template: string | undefined;
  /** Whether a route of the path and method takes the strict budget. */
  strict: boolean;
  /** The methods of every route of the path, in the order they were added, each once: `Allow`. */
  allowed: readonly string[];
}

/** @internal One lookup per request under the prefix (see {@link createRouteTable}). */
export interface RouteTable {
  lookup(method: string, path: string): RouteLookup;
}

interface Compiled {
  route: Route;
  /** For a template with parameters: its pattern, and the parameter names in order. */
  pattern?: RegExp;
  names: readonly string[];
}

/** Like `decodeURIComponent`, but a malformed escape leaves the text as it was. */
function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(prefix: string, definition: RouteDefinition): Compiled {
  const template = `${prefix}${definition.path}`;
  const methods = definition.method === 'GET' ? ['HEAD', 'GET'] : [definition.method];
  const route: Route = { ...definition, template, methods };
  const names: string[] = [];
  if (!template.includes('/:')) return { route, names };
  const source = template
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return escapeRegExp(segment);
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { route, names, pattern: new RegExp(`^${source}$`) };
}

/** The parameters of `path` for `compiled`, or undefined when it does not match. */
function matchOf(compiled: Compiled, path: string): Record<string, string> | undefined {
  if (compiled.pattern === undefined) return compiled.route.template === path ? {} : undefined;
  const captures = compiled.pattern.exec(path);
  if (captures === null) return undefined;
  const params: Record<string, string> = {};
  compiled.names.forEach((name, i) => {
    params[name] = decodeParam(captures[i + 1] as string);
  });
  return params;
}

/**
 * @internal Matches requests to tenant-auth's routes: paths are case-sensitive and strict (no trailing
 * slash), compared as sent (not decoded); a parameter is one non-empty segment, decoded (a malformed
 * escape is kept as sent); routes are tried in the order they were added. A path without parameters
 * is one `Map` lookup, whatever the number of routes.
 *
 * @example
 * const table = createRouteTable('/api/v1', [{ method: 'GET', path: '/health', strict: false, authenticated: true, handler }]);
 * table.lookup('HEAD', '/api/v1/health').route?.template; // '/api/v1/health'
 */
export function createRouteTable(prefix: string, definitions: readonly RouteDefinition[]): RouteTable {
  const compiled = definitions.map((definition) => compile(prefix, definition));
  const withParams = compiled.filter((c) => c.pattern !== undefined);

  /** Every route matching `path`, in order, with its parameters. */
  const matching = (path: string, candidates: readonly Compiled[]) => {
    const out: { route: Route; params: Record<string, string> }[] = [];
    for (const c of candidates) {
      const params = matchOf(c, path);
      if (params !== undefined) out.push({ route: c.route, params });
    }
    return out;
  };

  const lookupIn = (
    method: string,
    found: readonly { route: Route; params: Record<string, string> }[],
    allowed: readonly string[],
  ): RouteLookup => {
    const upper = method.toUpperCase();
    let hit: { route: Route; params: Record<string, string> } | undefined;
    let strict = false;
    for (const f of found) {
      if (!f.route.methods.includes(upper)) continue;
      hit ??= f;
      strict ||= f.route.strict;
    }
    return {
      route: hit?.route,
      params: hit ? { ...hit.params } : {},
      template: (hit ?? found[0])?.route.template,
      strict,
      allowed,
    };
  };

  const allowedOf = (found: readonly { route: Route }[]) =>
    Object.freeze([...new Set(found.flatMap((f) => f.route.methods))]);

  // The paths of the templates without parameters are known in advance: everything about them is
  // worked out once (including the routes with parameters that match them too).
  const fixed = new Map<
    string,
    { found: { route: Route; params: Record<string, string> }[]; allowed: readonly string[] }
  >();
  for (const c of compiled) {
    if (c.pattern !== undefined || fixed.has(c.route.template)) continue;
    const found = matching(c.route.template, compiled);
    fixed.set(c.route.template, { found, allowed: allowedOf(found) });
  }

  return {
    lookup(method, path) {
      const known = fixed.get(path);
      if (known) return lookupIn(method, known.found, known.allowed);
      const found = matching(path, withParams);
      return lookupIn(method, found, allowedOf(found));
    },
  };
}
