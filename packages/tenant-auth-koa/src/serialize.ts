import type { AuthResult, RegisterResult, SessionInfo, Tenant } from 'tenant-auth-core';
import type { z } from 'zod';
import type {
  registerResponseSchema,
  sessionSchema,
  tenantSchema,
  tokenResponseSchema,
} from './response-schemas.js';

/** JSON of a token response (dates as ISO strings); only the fields of API.md, nothing else. */
export type TokenResponseJson = z.infer<typeof tokenResponseSchema>;
/** JSON of a registration response. */
export type RegisterResponseJson = z.infer<typeof registerResponseSchema>;
/** JSON of a tenant. */
export type TenantJson = z.infer<typeof tenantSchema>;
/** JSON of a session entry. */
export type SessionJson = z.infer<typeof sessionSchema>;

/**
 * The token response body of login and refresh.
 *
 * @example ctx.body = toTokenResponse(await auth.login(body, requestContext(ctx)));
 */
export function toTokenResponse(result: AuthResult): TokenResponseJson {
  return {
    user: { id: result.user.id, email: result.user.email, tenantId: result.user.tenantId },
    session: { id: result.session.id, expiresAt: result.session.expiresAt.toISOString() },
    accessToken: result.accessToken,
    refreshToken: result.refreshToken,
    tokenType: 'Bearer',
    expiresIn: result.expiresIn,
    refreshExpiresIn: result.refreshExpiresIn,
  };
}

/**
 * A tenant body.
 *
 * @example ctx.body = toTenantJson(await auth.getMyTenant(ctx.state.auth));
 */
export function toTenantJson(tenant: Tenant): TenantJson {
  return { id: tenant.id, slug: tenant.slug, name: tenant.name, createdAt: tenant.createdAt.toISOString() };
}

/**
 * The registration body: the token response plus the tenant.
 *
 * @example ctx.body = toRegisterResponse(await auth.register(body, requestContext(ctx)));
 */
export function toRegisterResponse(result: RegisterResult): RegisterResponseJson {
  return { ...toTokenResponse(result), tenant: toTenantJson(result.tenant) };
}

/**
 * One session entry.
 *
 * @example ctx.body = { sessions: (await auth.listSessions(ctx.state.auth)).map(toSessionJson) };
 */
export function toSessionJson(session: SessionInfo): SessionJson {
  return {
    id: session.id,
    deviceInfo: session.deviceInfo,
    ipAddress: session.ipAddress,
    userAgent: session.userAgent,
    createdAt: session.createdAt.toISOString(),
    lastUsedAt: session.lastUsedAt.toISOString(),
    expiresAt: session.expiresAt.toISOString(),
    current: session.current,
  };
}
