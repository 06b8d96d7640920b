import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/core';
import { fieldError, TenantAuthError, validationError } from 'tenant-auth-core';
import { type AuthState, respondWithProblem, type TenantAuthKoa } from 'tenant-auth-koa';
import { Project } from './project.js';

const NAME_MAX_LENGTH = 200;

/** Any other id cannot be a project's: answered 404 without asking the database (which would refuse it). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toJson(project: Project) {
  return {
    id: project.id,
    tenantId: project.tenantId,
    name: project.name,
    createdAt: project.createdAt.toISOString(),
  };
}

/** The same problem for an unknown id and for another tenant's project: nothing tells them apart. */
const notFound = () => new TenantAuthError('not_found', 'No such project.');

/** `validation_failed` for a project name that is empty or too long, in tenant-auth's field-error shape. */
function invalidName(name: string) {
  const [code, message] =
    name === ''
      ? (['required', 'name must be a non-empty string.'] as const)
      : (['too_long', `name must be at most ${NAME_MAX_LENGTH} characters.`] as const);
  return validationError([fieldError('name', code, message)]);
}

/**
 * The application's own routes under tenant-auth's prefix. Each one is behind `requireAuth()`, and
 * every query is scoped by `ctx.state.auth.tenantId`, the tenant of the verified access token: never
 * by an id from the path, the query string or the body.
 */
export function projectsRouter(orm: MikroORM, tenantAuth: TenantAuthKoa): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: tenantAuth.prefix });
  const requireAuth = tenantAuth.requireAuth();

  router.get('/projects', requireAuth, async (ctx) => {
    const { tenantId } = ctx.state.auth;
    const projects = await orm.em
      .fork()
      .find(Project, { tenantId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    ctx.body = { projects: projects.map(toJson) };
  });

  router.post('/projects', requireAuth, async (ctx) => {
    const { tenantId } = ctx.state.auth;
    // The body is already parsed by tenant-auth (JSON only, size-limited). Only `name` is read from
    // it: a `tenantId` sent along changes nothing.
    const body = ctx.request.body as { name?: unknown };
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (name === '' || name.length > NAME_MAX_LENGTH) return respondWithProblem(ctx, invalidName(name));
    const em = orm.em.fork();
    const project = em.create(Project, { id: randomUUID(), tenantId, name, createdAt: new Date() });
    await em.flush();
    ctx.status = 201;
    ctx.body = toJson(project);
  });

  router.get('/projects/:id', requireAuth, async (ctx) => {
    const { tenantId } = ctx.state.auth;
    const id = ctx.params.id ?? '';
    const project = UUID.test(id) ? await orm.em.fork().findOne(Project, { id, tenantId }) : null;
    if (!project) return respondWithProblem(ctx, notFound());
    ctx.body = toJson(project);
  });

  return router;
}
