import type { AuthMethod } from './auth-methods.js';
import type { Role } from './roles.js';

/**
 * A tenant: the unit of data isolation.
 *
 * @example
 * const tenant: Tenant = { id, slug: 'analytical-engines', name: 'Analytical Engines', createdAt: new Date() };
 */
export interface Tenant {
  id: string;
  /** Lower-case ASCII letters, digits and single hyphens, 3 to 63 characters; unique. */
  slug: string;
  name: string;
  createdAt: Date;
}

/**
 * A tenant as stored: what a `TenantStore` writes and reads: the {@link Tenant} the API answers, and its
 * security policy.
 *
 * @example
 * const tenant: TenantRecord | null = await stores.tenants.findById(tenantId);
 */
export interface TenantRecord extends Tenant {
  /**
   * Whether every user of the tenant must sign in with a second factor (docs/http-api.md, "Tenant security
   * policy"). Optional (new in 1.2): absent is `false`, as for a store written for 1.1.
   */
  requireMfa?: boolean;
}

/**
 * A user as stored; belongs to exactly one tenant.
 *
 * @example
 * const user: UserRecord | null = await stores.users.findByEmail('ada@example.com');
 */
export interface UserRecord {
  id: string;
  tenantId: string;
  /** Normalised (see `normalizeEmail`); unique across the whole service. */
  email: string;
  /** bcrypt hash of the HMAC-SHA256 pre-hash of the password. Never leaves core. */
  passwordHash: string;
  role: Role;
  /** Whether the user proved they receive mail at `email` (a verification, reset or invitation link). */
  emailVerified: boolean;
  createdAt: Date;
  /**
   * Whether the account may sign in (docs/http-api.md, "Errors added in 1.3"): `false` once an admin or
   * the tenant's directory (SCIM) deactivated it. Optional (new in 1.3): absent is `true`, as for a store
   * written for 1.2.
   */
  active?: boolean;
}

/**
 * A user as a client may see it: never the password hash.
 *
 * @example
 * const { id, email, tenantId }: PublicUser = result.user;
 */
export interface PublicUser {
  id: string;
  email: string;
  tenantId: string;
  role: Role;
  emailVerified: boolean;
}

/**
 * A user as listed among its tenant's members.
 *
 * @example
 * const admins = (await auth.listMembers(claims)).filter((m: Member) => m.role !== 'member');
 */
export interface Member {
  id: string;
  email: string;
  role: Role;
  emailVerified: boolean;
  createdAt: Date;
  /**
   * Whether the account may sign in (new in 1.3); core always sets it. Optional so that a `Member` built
   * by 1.2 code still compiles: absent is `true`.
   */
  active?: boolean;
}

/**
 * What a one-time token can be for: the one list of the kinds, from which the type and the stores'
 * columns are derived.
 *
 * @example
 * const kind = p.enum(ONE_TIME_TOKEN_KINDS); // a MikroORM column
 */
export const ONE_TIME_TOKEN_KINDS = [
  'invitation',
  'password_reset',
  'email_verification',
  'email_change',
] as const;

/**
 * What a one-time token is for. Each kind has its lifetime, and issuing a new one for the same subject
 * (a user; for an invitation, an address in a tenant) replaces the older.
 *
 * @example
 * const kind: OneTimeTokenKind = 'password_reset';
 */
export type OneTimeTokenKind = (typeof ONE_TIME_TOKEN_KINDS)[number];

/**
 * A one-time token as stored: only the SHA-256 of the token (at least 256 random bits, base64url) is
 * kept; the token itself exists only in the link sent by mail.
 *
 * @example
 * const pending = await stores.oneTimeTokens.findByHash('invitation', sha256(token));
 */
export interface OneTimeTokenRecord {
  id: string;
  kind: OneTimeTokenKind;
  tenantId: string;
  /** The user it is for; `null` for an invitation (the user does not exist yet). */
  userId: string | null;
  /** The address it was sent to: the invitee, the user's address, or the new address of an email change. */
  email: string;
  /** The role an invitation grants; `null` for the other kinds. */
  role: Role | null;
  /** Who issued it: the inviting admin; `null` for the other kinds. */
  createdBy: string | null;
  /**
   * The session that asked for it (an email change keeps that session when it is confirmed); `null`
   * when none did.
   */
  sessionId: string | null;
  /** SHA-256 (hex) of the token. */
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * A pending invitation, as an administrator sees it (never its token).
 *
 * @example
 * const { id, email, role, expiresAt }: Invitation = await auth.createInvitation(claims, { email, role: 'member' });
 */
export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  /** The id of the administrator who sent it. */
  invitedBy: string | null;
}

/**
 * A mail waiting in the outbox. Written in the same transaction as the token its link carries, and
 * delivered afterwards. `payload` is sealed (AES-256-GCM): a copy of the database holds no usable link.
 *
 * @example
 * const due = await stores.outbox.claim({ now, limit: 20, leaseSeconds: 120 });
 */
export interface OutboxMessageRecord {
  id: string;
  tenantId: string | null;
  /** The template it is rendered with: `invitation`, `password_reset`, `email_verification`, ... */
  template: string;
  /** The recipient. */
  to: string;
  /** The sealed template data (the link among it). Emptied once the message is delivered or dead. */
  payload: string;
  createdAt: Date;
  /** Delivery attempts so far. */
  attempts: number;
  /** Not before this time. */
  nextAttemptAt: Date;
  /** Claimed by an instance until then; `null` when nobody holds it. */
  lockedUntil: Date | null;
  /** The last delivery error, summarised (never the message body). */
  lastError: string | null;
  /** When delivery was given up; `null` while it is still being tried. */
  deadAt: Date | null;
}

/**
 * The kinds of security event the audit log keeps (docs/http-api.md, "Audit log"), in the order of the contract:
 * the one list of them, from which the type, the HTTP contract and the stores' checks are derived.
 *
 * @example
 * if ((AUDIT_EVENT_TYPES as readonly string[]).includes(value)) filter.type = value as AuditEventType;
 */
export const AUDIT_EVENT_TYPES = [
  'registered',
  'login_succeeded',
  'login_failed',
  'refreshed',
  'refresh_reissued',
  'replay_detected',
  'logout',
  'session_revoked',
  'sessions_revoked',
  'password_reset_requested',
  'password_reset',
  'password_changed',
  'email_verified',
  'email_changed',
  'invitation_created',
  'invitation_revoked',
  'invitation_accepted',
  'member_role_changed',
  'member_removed',
  'account_deleted',
  'mfa_enabled',
  'mfa_disabled',
  'mfa_challenge_failed',
  'recovery_code_used',
  'recovery_codes_regenerated',
  'reauthenticated',
  'security_policy_changed',
  'passkey_added',
  'passkey_removed',
  'passkey_counter_regressed',
  'domain_added',
  'domain_verified',
  'domain_removed',
  'sso_configured',
  'sso_removed',
  'sso_login',
  'sso_user_provisioned',
  'api_key_created',
  'api_key_revoked',
  'sso_identity_linked',
  'user_deactivated',
  'user_reactivated',
  'webhook_created',
  'webhook_updated',
  'webhook_deleted',
  'webhook_disabled',
  'scim_user_created',
  'scim_user_updated',
  'scim_user_deleted',
  'scim_group_changed',
  'scim_token_created',
  'scim_token_revoked',
] as const;

/**
 * A kind of security event the audit log keeps (one of {@link AUDIT_EVENT_TYPES}).
 *
 * @example
 * const type: AuditEventType = 'member_role_changed';
 */
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/**
 * What can act on a tenant: a signed-in `user`, an `api_key` (docs/http-api.md, "API keys"), the server
 * itself (`system`, 1.3: disabling a failing webhook), or the tenant's directory (`scim`, 1.3: SCIM
 * provisioning; `actorId` null). The word
 * of `AuditEvent.actorType` and of a principal's `actorType`.
 *
 * @example
 * const byKey = events.filter((e) => e.actorType === ('api_key' satisfies ActorType));
 */
export const ACTOR_TYPES = ['user', 'api_key', 'system', 'scim'] as const;

/**
 * One of {@link ACTOR_TYPES}.
 *
 * @example
 * const actorType: ActorType = 'api_key';
 */
export type ActorType = (typeof ACTOR_TYPES)[number];

/**
 * An API key as the API answers it: never its secret, nor the secret's hash.
 *
 * @example
 * const { apiKeys }: { apiKeys: ApiKey[] } = { apiKeys: await auth.listApiKeys(claims) };
 */
export interface ApiKey {
  id: string;
  /** What the administrator called it ("CI deploys"). */
  name: string;
  /** What it may do: never above the role of whoever created it. */
  role: Role;
  /** The first 12 characters of the secret (`tak_` and 8 more), for people to recognise it. */
  prefix: string;
  createdAt: Date;
  /** The id of the administrator who created it (`null` once that account is gone). */
  createdBy: string | null;
  /** `null` when it never expires. */
  expiresAt: Date | null;
  /** When it last authenticated a request (written at most once a minute); `null` if never. */
  lastUsedAt: Date | null;
}

/**
 * One stored security event of a tenant: ids, time and where from; never a password, a token or a hash.
 *
 * @example
 * const { events }: { events: AuditEvent[] } = await auth.listAuditEvents(claims, { type: 'login_failed' });
 */
export interface AuditEvent {
  /** A UUIDv7: time-ordered. */
  id: string;
  tenantId: string;
  type: AuditEventType;
  at: Date;
  /**
   * Who acted: the user, or the API key (`actorType`); `null` when nobody authenticated did (a failed
   * login, a reset by link).
   */
  actorId: string | null;
  /** What `actorId` is: a `user` (also when nobody authenticated acted), or an `api_key`. */
  actorType: ActorType;
  /** Whom or what it was done to: a user, an invitation or an API key. */
  subjectId: string | null;
  sessionId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/**
 * An audit event as stored: what an `AuditEventStore` appends and lists. The fields of the
 * {@link AuditEvent} the API answers, but `actorType` is optional (new in 1.2): a store written for 1.1
 * keeps none, and a record without one is a user's (core always appends it).
 *
 * @example
 * await stores.auditEvents.append(record satisfies AuditEventRecord);
 */
export type AuditEventRecord = Omit<AuditEvent, 'actorType'> & { actorType?: ActorType };

/**
 * A login session as stored. It holds what is needed to rotate refresh tokens with replay detection:
 * the SHA-256 hash of the current refresh token, the hash of the one it replaced and when, and the
 * `jti` and times of the current token, so an identical child can be re-signed for racing requests.
 * The raw refresh token is never stored.
 *
 * @example
 * const session: SessionRecord | null = await stores.sessions.findById(tenantId, sessionId);
 */
export interface SessionRecord {
  id: string;
  tenantId: string;
  userId: string;
  deviceInfo: string;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  /** Sliding expiry: 7 days from the last rotation by default, never past `absoluteExpiresAt`. */
  expiresAt: Date;
  /** Hard limit from login (30 days by default). */
  absoluteExpiresAt: Date;
  revokedAt: Date | null;
  /** SHA-256 (hex) of the current refresh token. */
  refreshHash: string;
  /** `jti` of the current refresh token. */
  refreshJti: string;
  /** `iat` of the current refresh token. */
  refreshIssuedAt: Date;
  /** `exp` of the current refresh token. */
  refreshExpiresAt: Date;
  /** SHA-256 (hex) of the refresh token that the current one replaced, if any. */
  previousRefreshHash: string | null;
  /** When the current refresh token replaced the previous one. */
  rotatedAt: Date | null;
  /**
   * How the session was authenticated: set when it is created, and again only by a reauthentication;
   * a refresh copies it from here, never from the presented token. Core always writes it; optional (new
   * in 1.2) so that a store written for 1.1, which does not keep it, still compiles: see
   * {@link authenticationOf}.
   */
  amr?: AuthMethod[];
  /** When the user last proved who they are in this session (creation, reauthentication); optional as `amr`. */
  authTime?: Date;
}

/**
 * How and when a session's user proved who they are. A session without them (from a store written for
 * 1.1) is a password session authenticated when it was created: the rule the migration of 1.2 applies to
 * the sessions it finds.
 *
 * @example
 * const { amr, authTime } = authenticationOf(session);
 * const strong = amr.includes('mfa') || amr.includes('sso');
 */
export function authenticationOf(session: SessionRecord): { amr: AuthMethod[]; authTime: Date } {
  return { amr: session.amr ?? ['pwd'], authTime: session.authTime ?? session.createdAt };
}

/**
 * What a client is told about one of its sessions.
 *
 * @example
 * const sessions: SessionInfo[] = await auth.listSessions(claims);
 * const mine = sessions.find((s) => s.current);
 */
export interface SessionInfo {
  id: string;
  deviceInfo: string;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  /** Whether this is the session of the calling access token. */
  current: boolean;
}

/**
 * Where a request came from, as the HTTP adapter sees it. Recorded on sessions and in auth events.
 *
 * @example
 * await auth.login(input, { ipAddress: ctx.ip, userAgent: ctx.get('user-agent'), requestId });
 */
export interface RequestContext {
  ipAddress?: string | null;
  userAgent?: string | null;
  /** An id for the request, carried by the events it causes (for correlating logs). */
  requestId?: string | null;
}
