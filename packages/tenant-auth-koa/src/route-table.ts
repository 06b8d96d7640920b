import type { Context } from 'koa';
import type { BodyReader } from './request-body.js';

/** @internal A route of tenant-auth's own, as `createRoutes` derives it from an operation. */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Below the prefix, with `:name` parameters of one whole segment each: `/sessions/:id`. */
  path: string;
  /** Its name, for the routes that have one (the OpenAPI operation id). */
  name?: string;
  /** Whether requests to it count against the `strict` budget (it checks credentials or creates accounts). */
  strict: boolean;
  /** Whether it requires an access token (checked as `requireAuth()` does, before the handler). */
  authenticated: boolean;
  /**
   * What an API key gets there: `accepted` (as a principal), `refused` (`403 forbidden` once verified: a
   * route about a user, or *recent*), `ignored` (a route that reads no credential: `/jwks`, `/openapi.json`).
   */
  apiKeys?: 'accepted' | 'refused' | 'ignored';
  /** Reads the body by the route's rule (its media types, limit, origins), before the guard and handler. */
  readBody?: BodyReader;
  /** Answers the request (a promise when it has to wait); never calls on. */
  handler: (ctx: Context) => Promise<void> | void;
}

/** @internal A route ready to match. */
export interface Route extends RouteDefinition {
  /** The template, prefix included: what metrics and `ctx._matchedRoute` show. */
  template: string;
  /** The methods it answers: a GET route answers HEAD too. */
  methods: readonly string[];
  /** What `@koa/router` would put in `ctx.matched` for it (its template, methods and name). */
  layer: RouteLayer;
}

/** @internal A route as `ctx.matched` shows it, in the shape of `@koa/router`'s layers that matter there. */
export interface RouteLayer {
  readonly path: string;
  readonly methods: readonly string[];
  readonly name: string | undefined;
}

/** @internal What the table says of one request. */
export interface RouteLookup {
  /** The route that answers the request: the first added that matches its path and method. */
  route: Route | undefined;
  /** The decoded parameters of `route` (a fresh object per lookup). */
  params: Record<string, string>;
  /** The parameters of `route` as they appear in the path, in order (a fresh array per lookup). */
  captures: string[];
  /** The template of `route`, else of the first route of the path (whatever its method), else undefined. */
  template: string | undefined;
  /** Whether a route of the path and method takes the strict budget. */
  strict: boolean;
  /** The methods of every route of the path, in the order they were added, each once: `Allow`. */
  allowed: readonly string[];
  /** Every route of the path, in order, as `ctx.matched` lists them (share it: copy before changing). */
  matched: readonly RouteLayer[];
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

/** A route that matches a path, with what the path gives it. */
interface Match {
  route: Route;
  captures: readonly string[];
  params: Readonly<Record<string, string>>;
}

const NONE: readonly string[] = Object.freeze([]);

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
  const methods = Object.freeze(definition.method === 'GET' ? ['HEAD', 'GET'] : [definition.method]);
  const layer: RouteLayer = Object.freeze({ path: template, methods, name: definition.name });
  const route: Route = { ...definition, template, methods, layer };
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

/** The match of `path` for `compiled`, or undefined when it does not match. */
function matchOf(compiled: Compiled, path: string): Match | undefined {
  const { route } = compiled;
  if (compiled.pattern === undefined)
    return route.template === path ? { route, captures: NONE, params: {} } : undefined;
  const found = compiled.pattern.exec(path);
  if (found === null) return undefined;
  const captures = found.slice(1);
  const params: Record<string, string> = {};
  compiled.names.forEach((name, i) => {
    params[name] = decodeParam(captures[i] as string);
  });
  return { route, captures, params };
}

/**
 * @internal Matches requests to tenant-auth's routes as `@koa/router` (strict, case-sensitive) would: paths
 * are compared as sent (not decoded), with no trailing slash; a parameter is one non-empty segment, decoded
 * (a malformed escape is kept as sent); the routes are tried in the order they were added. A path
 * without parameters is one `Map` lookup, whatever the number of routes.
 *
 * @example
 * const table = createRouteTable('/api/v1', [{ method: 'GET', path: '/ping', strict: false, authenticated: true, handler }]);
 * table.lookup('HEAD', '/api/v1/ping').route?.template; // '/api/v1/ping'
 */
export function createRouteTable(prefix: string, definitions: readonly RouteDefinition[]): RouteTable {
  const compiled = definitions.map((definition) => compile(prefix, definition));
  const withParams = compiled.filter((c) => c.pattern !== undefined);

  /** Every route matching `path`, in order. */
  const matching = (path: string, candidates: readonly Compiled[]): Match[] => {
    const out: Match[] = [];
    for (const c of candidates) {
      const match = matchOf(c, path);
      if (match !== undefined) out.push(match);
    }
    return out;
  };

  /** What is the same for every request of a path, whatever its method. */
  interface PathFacts {
    found: readonly Match[];
    allowed: readonly string[];
    matched: readonly RouteLayer[];
  }
  const factsOf = (found: readonly Match[]): PathFacts => ({
    found,
    allowed: Object.freeze([...new Set(found.flatMap((f) => f.route.methods))]),
    matched: Object.freeze(found.map((f) => f.route.layer)),
  });

  const lookupIn = (method: string, facts: PathFacts): RouteLookup => {
    const upper = method.toUpperCase();
    let hit: Match | undefined;
    let strict = false;
    for (const f of facts.found) {
      if (!f.route.methods.includes(upper)) continue;
      hit ??= f;
      strict ||= f.route.strict;
    }
    return {
      route: hit?.route,
      params: hit ? { ...hit.params } : {},
      captures: hit ? [...hit.captures] : [],
      template: (hit ?? facts.found[0])?.route.template,
      strict,
      allowed: facts.allowed,
      matched: facts.matched,
    };
  };

  // The paths of the templates without parameters are known in advance: everything about them is
  // worked out once (including the routes with parameters that match them too).
  const fixed = new Map<string, PathFacts>();
  for (const c of compiled) {
    if (c.pattern !== undefined || fixed.has(c.route.template)) continue;
    fixed.set(c.route.template, factsOf(matching(c.route.template, compiled)));
  }

  return {
    lookup(method, path) {
      return lookupIn(method, fixed.get(path) ?? factsOf(matching(path, withParams)));
    },
  };
}
