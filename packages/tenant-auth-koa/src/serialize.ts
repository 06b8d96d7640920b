import type {
  AuditEvent,
  Invitation,
  Member,
  RegisterResult,
  SessionInfo,
  Tenant,
  TokenResponse,
} from 'tenant-auth-core';
import type {
  AuditEventJson,
  InvitationJson,
  MemberJson,
  RegisterResponseJson,
  SessionJson,
  TenantJson,
  TokenResponseJson,
} from './http-contract.js';

/**
 * @internal The token response body of login and refresh.
 *
 * @example ctx.body = toTokenResponse(await auth.login(body, requestContext(ctx)));
 */
export function toTokenResponse(result: TokenResponse): TokenResponseJson {
  return {
    user: {
      id: result.user.id,
      email: result.user.email,
      tenantId: result.user.tenantId,
      role: result.user.role,
      emailVerified: result.user.emailVerified,
    },
    session: {
      id: result.session.id,
      expiresAt: result.session.expiresAt.toISOString(),
      amr: [...result.session.amr],
      authTime: result.session.authTime.toISOString(),
    },
    accessToken: result.accessToken,
    refreshToken: result.refreshToken,
    tokenType: 'Bearer',
    expiresIn: result.expiresIn,
    refreshExpiresIn: result.refreshExpiresIn,
  };
}

/**
 * @internal A tenant body.
 *
 * @example ctx.body = toTenantJson(await auth.getMyTenant(ctx.state.auth));
 */
export function toTenantJson(tenant: Tenant): TenantJson {
  return { id: tenant.id, slug: tenant.slug, name: tenant.name, createdAt: tenant.createdAt.toISOString() };
}

/**
 * @internal The registration body: the token response plus the tenant.
 *
 * @example ctx.body = toRegisterResponse(await auth.register(body, requestContext(ctx)));
 */
export function toRegisterResponse(result: RegisterResult): RegisterResponseJson {
  return { ...toTokenResponse(result), tenant: toTenantJson(result.tenant) };
}

/**
 * @internal One session entry.
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

/** @internal */
export function toMemberJson(member: Member): MemberJson {
  return {
    id: member.id,
    email: member.email,
    role: member.role,
    emailVerified: member.emailVerified,
    createdAt: member.createdAt.toISOString(),
    active: member.active ?? true,
  };
}

/** @internal */
export function toInvitationJson(invitation: Invitation): InvitationJson {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    createdAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
    invitedBy: invitation.invitedBy,
  };
}

/** @internal */
export function toAuditEventJson(event: AuditEvent): AuditEventJson {
  return {
    id: event.id,
    type: event.type,
    at: event.at.toISOString(),
    actorId: event.actorId,
    actorType: event.actorType,
    subjectId: event.subjectId,
    sessionId: event.sessionId,
    ipAddress: event.ipAddress,
    userAgent: event.userAgent,
    requestId: event.requestId,
  };
}
