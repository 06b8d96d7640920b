import type { Context } from 'koa';
import {
  isTenantAuthError,
  type LoginInput,
  type RegisterInput,
  type TenantAuth,
  TenantAuthError,
} from 'tenant-auth-core';
import type { AuthState } from './auth-state.js';
import { clearTokenCookies, type ResolvedCookieOptions, setTokenCookies } from './cookies.js';
import { assertSameOriginRequest } from './csrf.js';
import type { HealthCheck } from './health.js';
import { requestBody } from './json-body.js';
import { requestContext } from './request-context.js';
import { type FoundToken, findToken } from './request-tokens.js';
import type { RouteDefinition } from './route-table.js';
import {
  toAuditEventJson,
  toInvitationJson,
  toMemberJson,
  toRegisterResponse,
  toSessionJson,
  toTenantJson,
  toTokenResponse,
} from './serialize.js';

/** @internal What the routes need. */
export interface RouteSettings {
  auth: TenantAuth;
  prefix: string;
  cookies: ResolvedCookieOptions;
  origins: ReadonlySet<string>;
  health: HealthCheck | undefined;
  /** The OpenAPI document, serialised once. */
  openapiJson: string;
}

/** @internal Names of the routes that take the strict budget: they check credentials or create accounts. */
export const STRICT_ROUTES: ReadonlySet<string> = new Set([
  'register',
  'login',
  'refresh',
  'acceptInvitation',
  'forgotPassword',
  'resetPassword',
  'changePassword',
  'requestEmailVerification',
  'verifyEmail',
  'changeEmail',
  'confirmEmailChange',
  'deleteAccount',
  // It answers whether an address has an account (email_taken), so it is no faster a probe than registration.
  'createInvitation',
]);

function noStore(ctx: Context): void {
  if (!ctx.res.headersSent) ctx.res.setHeader('Cache-Control', 'no-store');
}

/** The JSON body as an object of unknown values; core validates each value. */
function bodyOf(ctx: Context): Record<string, unknown> {
  const body = requestBody(ctx);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TenantAuthError('validation_failed', 'The request is invalid.', {
      errors: [{ field: 'body', code: 'invalid_type', message: 'The body must be a JSON object.' }],
    });
  }
  return body as Record<string, unknown>;
}

/** A single query parameter as a string, `undefined` when absent; repeated parameters are refused. */
function queryParam(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw new TenantAuthError('validation_failed', 'The request is invalid.', {
      errors: [{ field: name, code: 'invalid_value', message: `${name} must be given once.` }],
    });
  }
  return value;
}

/** A token found in a cookie may only be used by an allowed origin to change state. */
function checkOrigin(ctx: Context, found: FoundToken | undefined, origins: ReadonlySet<string>): FoundToken {
  if (found === undefined) throw new TenantAuthError('invalid_token', 'A token is required.');
  if (found.via === 'cookie') assertSameOriginRequest(ctx, origins);
  return found;
}

/** What a route's handler sees: the route's decoded parameters, and the caller once the guard let it in. */
type RouteContext = Context & { params: Record<string, string>; state: AuthState };

type Handler = (ctx: RouteContext) => Promise<void> | void;

/** In a route's declaration, before its handler: the route requires an access token (`requireAuth()`'s check). */
const authenticated = Symbol('authenticated');

/** Adds a route: its name (the OpenAPI operation id) first when it has one, `authenticated` before the handler when it requires a token. */
interface Declare {
  (path: string, handler: Handler): void;
  (path: string, guard: typeof authenticated, handler: Handler): void;
  (name: string, path: string, handler: Handler): void;
  (name: string, path: string, guard: typeof authenticated, handler: Handler): void;
}

/** Declares routes in order, the way `@koa/router` takes them: `get(name?, path, authenticated?, handler)`. */
function routeList() {
  const routes: RouteDefinition[] = [];
  const route = (method: RouteDefinition['method'], args: unknown[]): void => {
    const named = typeof args[1] === 'string';
    const name = named ? (args[0] as string) : undefined;
    const [path, ...rest] = (named ? args.slice(1) : args) as [string, ...unknown[]];
    const guarded = rest[0] === authenticated;
    const handler = rest[rest.length - 1] as RouteDefinition['handler'];
    const strict = name !== undefined && STRICT_ROUTES.has(name);
    const definition: RouteDefinition = { method, path, strict, authenticated: guarded, handler };
    routes.push(name === undefined ? definition : { ...definition, name });
  };
  return {
    routes,
    get: ((...args: unknown[]) => route('GET', args)) as Declare,
    post: ((...args: unknown[]) => route('POST', args)) as Declare,
    patch: ((...args: unknown[]) => route('PATCH', args)) as Declare,
    delete: ((...args: unknown[]) => route('DELETE', args)) as Declare,
  };
}

/**
 * @internal The routes of API.md, in order (the first that matches a request answers it), paths below
 * the prefix. Bodies are parsed before (JSON only); every value is validated by core.
 */
export function createRoutes(settings: RouteSettings): RouteDefinition[] {
  const { auth, cookies, origins } = settings;
  const router = routeList();

  router.post('register', '/auth/register', async (ctx) => {
    const body = bodyOf(ctx);
    const input = {
      email: body.email,
      password: body.password,
      tenantName: body.tenantName,
      deviceInfo: body.deviceInfo,
    } as RegisterInput;
    const result = await auth.register(input, requestContext(ctx));
    setTokenCookies(ctx, cookies, result);
    noStore(ctx);
    ctx.status = 201;
    ctx.body = toRegisterResponse(result);
  });

  router.post('login', '/auth/login', async (ctx) => {
    const body = bodyOf(ctx);
    const input = { email: body.email, password: body.password, deviceInfo: body.deviceInfo } as LoginInput;
    const result = await auth.login(input, requestContext(ctx));
    setTokenCookies(ctx, cookies, result);
    noStore(ctx);
    ctx.body = toTokenResponse(result);
  });

  router.post('refresh', '/auth/refresh', async (ctx) => {
    const found = checkOrigin(
      ctx,
      findToken(ctx, { bodyField: 'refreshToken', cookies: cookies.read ? [cookies.refreshName] : [] }),
      origins,
    );
    noStore(ctx);
    try {
      const result = await auth.refresh(found.token, requestContext(ctx));
      setTokenCookies(ctx, cookies, result);
      ctx.body = toTokenResponse(result);
    } catch (err) {
      // A refresh cookie that no longer works (expired, revoked, replayed) is useless to the browser.
      if (found.via === 'cookie' && isTenantAuthError(err, 'invalid_token')) clearTokenCookies(ctx, cookies);
      throw err;
    }
  });

  router.post('/auth/logout', async (ctx) => {
    const found = checkOrigin(
      ctx,
      findToken(ctx, { cookies: cookies.read ? [cookies.refreshName, cookies.accessName] : [] }),
      origins,
    );
    noStore(ctx);
    // Cleared whatever happens next: a client asking to log out must not keep its cookies.
    clearTokenCookies(ctx, cookies);
    await auth.logout(found.token, requestContext(ctx));
    ctx.status = 204;
  });

  router.get('/tenants/me', authenticated, async (ctx) => {
    noStore(ctx);
    ctx.body = toTenantJson(await auth.getMyTenant(ctx.state.auth));
  });

  router.get('/tenants/:id', authenticated, async (ctx) => {
    noStore(ctx);
    ctx.body = toTenantJson(await auth.getTenant(ctx.state.auth, ctx.params.id ?? ''));
  });

  router.get('/sessions', authenticated, async (ctx) => {
    noStore(ctx);
    ctx.body = { sessions: (await auth.listSessions(ctx.state.auth)).map(toSessionJson) };
  });

  router.delete('/sessions/:id', authenticated, async (ctx) => {
    await auth.revokeSession(ctx.state.auth, ctx.params.id ?? '', requestContext(ctx));
    noStore(ctx);
    ctx.status = 204;
  });

  router.delete('/sessions', authenticated, async (ctx) => {
    const except = ctx.query.except;
    if (except !== undefined && except !== 'current') {
      throw new TenantAuthError('validation_failed', 'The request is invalid.', {
        errors: [{ field: 'except', code: 'invalid_value', message: "except must be 'current'." }],
      });
    }
    const revoked = await auth.revokeAllSessions(
      ctx.state.auth,
      { exceptCurrent: except === 'current' },
      requestContext(ctx),
    );
    noStore(ctx);
    ctx.body = { revoked };
  });

  // Members and invitations (API 1.1). The role rules are core's; these only translate.
  router.get('/tenants/me/members', authenticated, async (ctx) => {
    noStore(ctx);
    ctx.body = { members: (await auth.listMembers(ctx.state.auth)).map(toMemberJson) };
  });

  router.patch('/tenants/me/members/:userId', authenticated, async (ctx) => {
    const body = bodyOf(ctx);
    const member = await auth.changeMemberRole(
      ctx.state.auth,
      ctx.params.userId ?? '',
      body.role as never,
      requestContext(ctx),
    );
    noStore(ctx);
    ctx.body = toMemberJson(member);
  });

  router.delete('/tenants/me/members/:userId', authenticated, async (ctx) => {
    await auth.removeMember(ctx.state.auth, ctx.params.userId ?? '', requestContext(ctx));
    noStore(ctx);
    ctx.status = 204;
  });

  router.post('createInvitation', '/tenants/me/invitations', authenticated, async (ctx) => {
    const body = bodyOf(ctx);
    const invitation = await auth.createInvitation(
      ctx.state.auth,
      { email: body.email, role: body.role } as never,
      requestContext(ctx),
    );
    noStore(ctx);
    ctx.status = 201;
    ctx.body = { invitation: toInvitationJson(invitation) };
  });

  router.get('/tenants/me/invitations', authenticated, async (ctx) => {
    noStore(ctx);
    ctx.body = { invitations: (await auth.listInvitations(ctx.state.auth)).map(toInvitationJson) };
  });

  router.delete('/tenants/me/invitations/:id', authenticated, async (ctx) => {
    await auth.revokeInvitation(ctx.state.auth, ctx.params.id ?? '', requestContext(ctx));
    noStore(ctx);
    ctx.status = 204;
  });

  router.post('acceptInvitation', '/auth/invitations/accept', async (ctx) => {
    const body = bodyOf(ctx);
    const result = await auth.acceptInvitation(
      { token: body.token, password: body.password, deviceInfo: body.deviceInfo } as never,
      requestContext(ctx),
    );
    setTokenCookies(ctx, cookies, result);
    noStore(ctx);
    ctx.status = 201;
    ctx.body = toTokenResponse(result);
  });

  // Account recovery and email (API 1.1).
  router.post('forgotPassword', '/auth/password/forgot', async (ctx) => {
    const body = bodyOf(ctx);
    await auth.forgotPassword({ email: body.email } as never, requestContext(ctx));
    noStore(ctx);
    ctx.status = 202;
    ctx.body = {};
  });

  router.post('resetPassword', '/auth/password/reset', async (ctx) => {
    const body = bodyOf(ctx);
    await auth.resetPassword({ token: body.token, password: body.password } as never, requestContext(ctx));
    noStore(ctx);
    ctx.status = 204;
  });

  router.post('changePassword', '/auth/password/change', authenticated, async (ctx) => {
    const body = bodyOf(ctx);
    await auth.changePassword(
      ctx.state.auth,
      { currentPassword: body.currentPassword, newPassword: body.newPassword } as never,
      requestContext(ctx),
    );
    noStore(ctx);
    ctx.status = 204;
  });

  router.post('requestEmailVerification', '/auth/email/verification', authenticated, async (ctx) => {
    await auth.requestEmailVerification(ctx.state.auth, requestContext(ctx));
    noStore(ctx);
    ctx.status = 202;
    ctx.body = {};
  });

  router.post('verifyEmail', '/auth/email/verify', async (ctx) => {
    const body = bodyOf(ctx);
    await auth.verifyEmail({ token: body.token } as never, requestContext(ctx));
    noStore(ctx);
    ctx.status = 204;
  });

  router.post('changeEmail', '/auth/email/change', authenticated, async (ctx) => {
    const body = bodyOf(ctx);
    await auth.changeEmail(
      ctx.state.auth,
      { newEmail: body.newEmail, password: body.password } as never,
      requestContext(ctx),
    );
    noStore(ctx);
    ctx.status = 202;
    ctx.body = {};
  });

  router.post('confirmEmailChange', '/auth/email/change/confirm', async (ctx) => {
    const body = bodyOf(ctx);
    await auth.confirmEmailChange({ token: body.token } as never, requestContext(ctx));
    noStore(ctx);
    ctx.status = 204;
  });

  router.delete('deleteAccount', '/users/me', authenticated, async (ctx) => {
    const body = bodyOf(ctx);
    await auth.deleteAccount(ctx.state.auth, { password: body.password } as never, requestContext(ctx));
    noStore(ctx);
    // The account is gone: so are its tokens, in this browser too.
    clearTokenCookies(ctx, cookies);
    ctx.status = 204;
  });

  // Audit log (API 1.1).
  router.get('/tenants/me/audit-events', authenticated, async (ctx) => {
    const page = await auth.listAuditEvents(ctx.state.auth, {
      limit: queryParam(ctx, 'limit'),
      before: queryParam(ctx, 'before'),
      type: queryParam(ctx, 'type'),
      userId: queryParam(ctx, 'userId'),
    });
    noStore(ctx);
    ctx.body = { events: page.events.map(toAuditEventJson), next: page.next };
  });

  router.get('/.well-known/jwks.json', async (ctx) => {
    const jwks = await auth.jwks();
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = { keys: jwks.keys };
  });

  router.get('/openapi.json', async (ctx) => {
    ctx.type = 'application/json';
    ctx.body = settings.openapiJson;
  });

  const { health } = settings;
  if (health) {
    // Two constant answers, serialised once.
    const healthy = JSON.stringify({ status: 'ok', database: 'ok' });
    const degraded = JSON.stringify({ status: 'degraded', database: 'unavailable' });
    const answer = (ctx: Context, ok: boolean) => {
      noStore(ctx);
      if (!ok) ctx.set('Retry-After', String(health.retryAfterSeconds));
      ctx.status = ok ? 200 : 503;
      ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
      ctx.body = ok ? healthy : degraded;
    };
    // The answer of the last ping while it is fresh, at once; otherwise after the ping.
    const handler = (ctx: Context): Promise<void> | void => {
      const known = health.fresh();
      if (known !== undefined) return answer(ctx, known);
      return health.check().then((ok) => answer(ctx, ok));
    };
    if (health.requireAuth) router.get('/health', authenticated, handler);
    else router.get('/health', handler);
  }

  return router.routes;
}
