import type { RateLimitBudget } from './rate-limit-result.js';
import type { ActorType, AuditEventType, RequestContext } from './records.js';
import type { Role } from './roles.js';

/**
 * What every auth event carries: what happened, when, in which tenant, who did it to whom, where from.
 * The same fields as the stored audit event. Never a password, a token or a hash.
 *
 * @example
 * const where = (e: AuthEventBase) => `${e.ipAddress ?? '?'} (${e.userAgent ?? '?'}) request ${e.requestId}`;
 */
export interface AuthEventBase {
  /** A UUIDv7; the id of the audit event when the event is stored. */
  id: string;
  at: Date;
  tenantId: string;
  /** Who acted: the signed-in user or the API key; `null` when nobody authenticated did (a reset by link). */
  actorId: string | null;
  /** What `actorId` is: `user` (also when nobody authenticated acted) or `api_key`. */
  actorType: ActorType;
  /** Whom or what it was done to: a user, or an invitation for the invitation events. */
  subjectId: string | null;
  sessionId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  /** The id of the request that caused the event (RequestContext.requestId), for correlating logs. */
  requestId: string | null;
}

/**
 * Why a login failed. Only `wrong_password` concerns a known account (and is stored in the audit log);
 * `unknown_email` is never told to the client.
 *
 * @example
 * const reason: LoginFailureReason = 'wrong_password';
 */
export type LoginFailureReason = 'wrong_password' | 'unknown_email' | 'throttled';

/**
 * What an event that belongs to no tenant carries (a failed login of an unknown or throttled account, a
 * refresh token that is not one, a rate-limit refusal): nobody known caused it, so it is not stored in
 * any audit log.
 *
 * @example
 * const base: UnattributedEventBase = { id, at, tenantId: null, actorId: null, subjectId: null, sessionId: null, ipAddress, userAgent: null, requestId: null };
 */
export type UnattributedEventBase = Omit<
  AuthEventBase,
  'tenantId' | 'actorId' | 'subjectId' | 'sessionId' | 'actorType'
> & {
  actorType: 'user';
  tenantId: null;
  actorId: null;
  subjectId: null;
  sessionId: null;
};

/**
 * The events of authentication, for the audit log, metrics and alerts (the `onEvent` option of
 * `createTenantAuth`), a discriminated union on `type`. Every event with a tenant is also stored in the
 * audit log, in the same transaction as the change it records, and `onEvent` sees it once that
 * transaction has committed. `refresh_failed`, `rate_limited`, and failed logins of unknown or
 * throttled accounts belong to no tenant: `onEvent` sees them, the audit log does not.
 *
 * @example
 * const onEvent = (event: AuthEvent) => {
 *   if (event.type === 'replay_detected') alertSecurityTeam(event.tenantId, event.sessionId);
 *   if (event.type === 'login_failed') loginFailures.inc({ reason: event.reason });
 * };
 */
export type AuthEvent =
  | (AuthEventBase & {
      type: Exclude<
        AuditEventType,
        | 'sessions_revoked'
        | 'login_failed'
        | 'invitation_created'
        | 'invitation_accepted'
        | 'member_role_changed'
      >;
    })
  | (AuthEventBase & { type: 'sessions_revoked'; count: number })
  | (AuthEventBase & { type: 'invitation_created' | 'invitation_accepted'; role: Role })
  | (AuthEventBase & { type: 'member_role_changed'; role: Role; previousRole: Role })
  | (AuthEventBase & { type: 'login_failed'; reason: 'wrong_password' })
  | (UnattributedEventBase & { type: 'login_failed'; reason: 'unknown_email' | 'throttled' })
  | (UnattributedEventBase & { type: 'refresh_failed' })
  | (UnattributedEventBase & { type: 'rate_limited'; budget: RateLimitBudget });

/**
 * The `type` of an {@link AuthEvent}.
 *
 * @example
 * const type: AuthEventType = 'login_succeeded';
 */
export type AuthEventType = AuthEvent['type'];

/** @internal The request fields of an event. */
export function requestFields(
  context: RequestContext,
): Pick<AuthEventBase, 'ipAddress' | 'userAgent' | 'requestId'> {
  return {
    ipAddress: context.ipAddress ?? null,
    userAgent: context.userAgent ?? null,
    requestId: context.requestId ?? null,
  };
}
