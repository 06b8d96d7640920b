import { z } from 'zod';
import {
  actorTypeSchema,
  amrSchema,
  auditCursor,
  auditEventTypeSchema,
  id,
  isoDate,
  roleSchema,
} from './contract-parts.js';
import { recoveryCodesSchema } from './mfa-contract.js';
import { passkeySchema } from './passkey-contract.js';

export {
  type ApiKeyJson,
  apiKeyListSchema,
  apiKeySchema,
  createdApiKeySchema,
} from './api-key-contract.js';
export {
  actorTypeSchema,
  amrSchema,
  auditEventTypeSchema,
  fieldErrorCodeSchema,
  mfaMethodSchema,
  problemCodeSchema,
  roleSchema,
} from './contract-parts.js';
export {
  type MeJson,
  meSchema,
  recoveryCodesSchema,
  securityPolicySchema,
  totpSetupSchema,
} from './mfa-contract.js';
export {
  creationOptionsSchema,
  passkeyListSchema,
  passkeySchema,
  requestOptionsSchema,
} from './passkey-contract.js';
export { fieldErrorSchema, problemSchema } from './problem-contract.js';
export { requestSchemas } from './request-schemas.js';
export {
  domainListSchema,
  domainResponseSchema,
  domainSchema,
  ssoConnectionSchema,
  ssoResponseSchema,
  ssoStartSchema,
} from './sso-contract.js';

/** Largest lifetime a token response states, in seconds: a signed 32-bit integer, as clients' timers hold. */
const MAX_LIFETIME_SECONDS = 2_147_483_647;

/**
 * `user` of a token response.
 *
 * @example
 * publicUserSchema.parse(body.user);
 */
export const publicUserSchema = z
  .object({
    id: id(),
    email: z.string().meta({ description: 'Email address, lower-cased.' }),
    tenantId: id('The tenant the user belongs to.'),
    role: roleSchema,
    emailVerified: z.boolean(),
  })
  .meta({ id: 'User', description: 'The signed-in user.' });

/**
 * A member of a tenant, as `GET /tenants/me/members` lists them.
 *
 * @example
 * const { members } = memberListSchema.parse(await res.json());
 */
export const memberSchema = z
  .object({
    id: id('User id.'),
    email: z.string(),
    role: roleSchema,
    emailVerified: z.boolean(),
    createdAt: isoDate(),
    active: z.boolean().meta({ description: 'Whether the account may sign in (`false`: deactivated; 1.3).' }),
  })
  .meta({ id: 'Member', description: 'A member of the tenant.' });

/**
 * The body of `GET /tenants/me/members`.
 *
 * @example
 * const { members } = memberListSchema.parse(await res.json());
 */
export const memberListSchema = z
  .object({ members: z.array(memberSchema) })
  .meta({ id: 'MemberList', description: 'The body of `GET /tenants/me/members`.' });

/**
 * A pending invitation (never its token).
 *
 * @example
 * const { invitation } = invitationResponseSchema.parse(await res.json());
 */
export const invitationSchema = z
  .object({
    id: id(),
    email: z.string(),
    role: roleSchema,
    createdAt: isoDate(),
    expiresAt: isoDate(),
    invitedBy: id()
      .nullable()
      .meta({ description: 'Id of the administrator who invited; null once that account is gone.' }),
  })
  .meta({ id: 'Invitation', description: 'A pending invitation (never its token).' });

/**
 * The body of `POST /tenants/me/invitations`.
 *
 * @example
 * const { invitation } = invitationResponseSchema.parse(await res.json());
 */
export const invitationResponseSchema = z
  .object({ invitation: invitationSchema })
  .meta({ id: 'InvitationResponse', description: 'The body of `POST /tenants/me/invitations`.' });

/**
 * The body of `GET /tenants/me/invitations`.
 *
 * @example
 * const { invitations } = invitationListSchema.parse(await res.json());
 */
export const invitationListSchema = z
  .object({ invitations: z.array(invitationSchema) })
  .meta({ id: 'InvitationList', description: 'The body of `GET /tenants/me/invitations`.' });

/**
 * One audit event.
 *
 * @example
 * const { events } = auditEventPageSchema.parse(await res.json());
 */
export const auditEventSchema = z
  .object({
    id: id(),
    type: auditEventTypeSchema,
    at: isoDate(),
    actorId: id().nullable().meta({ description: 'The user or API key who acted; null when unknown.' }),
    actorType: actorTypeSchema,
    subjectId: id().nullable().meta({ description: 'The user, invitation or API key the event is about.' }),
    sessionId: id().nullable(),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    requestId: z.string().nullable(),
  })
  .meta({ id: 'AuditEvent', description: 'One security event of the tenant; it holds no secret.' });

/**
 * The body of `GET /tenants/me/audit-events`: a page, newest first.
 *
 * @example
 * const { events, next } = auditEventPageSchema.parse(await res.json());
 */
export const auditEventPageSchema = z
  .object({
    events: z.array(auditEventSchema),
    next: auditCursor()
      .nullable()
      .meta({ description: 'Cursor of the next (older) page, for `before`; null on the last page.' }),
  })
  .meta({
    id: 'AuditEventPage',
    description: 'The body of `GET /tenants/me/audit-events`: a page, newest first.',
  });

/**
 * The body of a `202 Accepted`: `{}`.
 *
 * @example
 * acceptedSchema.parse(await res.json());
 */
export const acceptedSchema = z.object({}).strict().meta({ id: 'Accepted', description: 'Always `{}`.' });

/**
 * A tenant as returned by `/tenants/me`, `/tenants/:id` and registration.
 *
 * @example
 * const tenant = tenantSchema.parse(await res.json());
 */
export const tenantSchema = z
  .object({
    id: id(),
    slug: z.string().meta({ description: 'URL-safe name, unique, derived from the name.' }),
    name: z.string(),
    createdAt: isoDate(),
  })
  .meta({ id: 'Tenant', description: 'A tenant: the organisation its users belong to.' });

/**
 * The token response of login, registration and refresh (docs/http-api.md, "Token response").
 *
 * @example
 * const tokens = tokenResponseSchema.parse(await res.json());
 */
export const tokenResponseSchema = z
  .object({
    user: publicUserSchema,
    session: z
      .object({
        id: id(),
        expiresAt: isoDate().meta({ description: 'When the session ends unless it is refreshed.' }),
        amr: amrSchema,
        authTime: isoDate().meta({ description: 'When the user last proved who they are.' }),
      })
      .meta({ id: 'TokenSession', description: 'The session the tokens belong to.' }),
    accessToken: z.string().meta({ description: 'Access JWT (15 minutes by default).' }),
    refreshToken: z.string().meta({ description: 'Refresh JWT, rotated on every refresh.' }),
    tokenType: z.literal('Bearer'),
    expiresIn: z
      .int()
      .min(1)
      .max(MAX_LIFETIME_SECONDS)
      .meta({ description: 'Access token lifetime in seconds (900 by default).' }),
    refreshExpiresIn: z.int().min(1).max(MAX_LIFETIME_SECONDS).meta({
      description:
        'Seconds until the refresh token expires (604800 by default; less near the end of a session).',
    }),
  })
  .meta({
    id: 'TokenResponse',
    description: 'The answer of login, registration, refresh and invitation acceptance.',
  });

/**
 * Registration answers the token response plus the new tenant.
 *
 * @example
 * const { tenant } = registerResponseSchema.parse(await res.json());
 */
export const registerResponseSchema = z
  .intersection(tokenResponseSchema, z.object({ tenant: tenantSchema }))
  .meta({ id: 'RegisterResponse', description: 'The token response plus the new tenant.' });

/**
 * The body of `POST /auth/mfa/totp/confirm`: the recovery codes, and with an `mfaToken` the token
 * response of the new session too.
 *
 * @example
 * const body = totpConfirmResponseSchema.parse(await res.json());
 * if ('accessToken' in body) signedIn(body);
 */
export const totpConfirmResponseSchema = z
  .union([z.intersection(tokenResponseSchema, recoveryCodesSchema), recoveryCodesSchema])
  .meta({
    id: 'TotpConfirmResponse',
    description:
      'The recovery codes (`null` when the earlier ones stay); with an `mfaToken`, the token response of the new session too.',
  });

/**
 * The body of `POST /auth/passkeys`: the passkey, and with a setup `mfaToken` the token response of the new
 * session and the recovery codes too.
 *
 * @example
 * const body = addPasskeyResponseSchema.parse(await res.json());
 */
export const addPasskeyResponseSchema = z
  .union([
    z.intersection(
      z.intersection(tokenResponseSchema, recoveryCodesSchema),
      z.object({ passkey: passkeySchema }),
    ),
    z.object({ passkey: passkeySchema }),
  ])
  .meta({
    id: 'AddPasskeyResponse',
    description:
      'The new passkey; with a setup `mfaToken`, the token response of the new session and the recovery codes too.',
  });

/**
 * One entry of `GET /sessions`.
 *
 * @example
 * const session = sessionSchema.parse(body.sessions[0]);
 */
export const sessionSchema = z
  .object({
    id: id(),
    deviceInfo: z.string(),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: isoDate(),
    lastUsedAt: isoDate(),
    expiresAt: isoDate(),
    current: z.boolean().meta({ description: 'Whether this is the session of the calling token.' }),
  })
  .meta({ id: 'Session', description: 'An active session of the caller.' });

/**
 * The body of `GET /sessions`.
 *
 * @example
 * const { sessions } = sessionListSchema.parse(await res.json());
 */
export const sessionListSchema = z
  .object({ sessions: z.array(sessionSchema) })
  .meta({ id: 'SessionList', description: 'The body of `GET /sessions`.' });

/**
 * The body of `DELETE /sessions`.
 *
 * @example
 * const { revoked } = revokedCountSchema.parse(await res.json());
 */
export const revokedCountSchema = z
  .object({ revoked: z.int().min(0).meta({ description: 'How many sessions were revoked.' }) })
  .meta({ id: 'RevokedCount', description: 'The body of `DELETE /sessions`.' });

/**
 * The body of `GET /.well-known/jwks.json`.
 *
 * @example
 * const { keys } = jwksSchema.parse(await res.json());
 */
export const jwksSchema = z
  .object({
    keys: z.array(
      z
        .looseObject({ kty: z.string(), kid: z.string().optional(), alg: z.string().optional() })
        .meta({ id: 'Jwk', description: 'A public JSON Web Key (RFC 7517).' }),
    ),
  })
  .meta({ id: 'Jwks', description: 'A JSON Web Key Set (RFC 7517).' });

/**
 * The body of `GET /health` (200 and 503).
 *
 * @example
 * const { status } = healthSchema.parse(await res.json());
 */
export const healthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    database: z.enum(['ok', 'unavailable']),
  })
  .meta({ id: 'Health', description: 'The body of `GET /health`.' });

/**
 * JSON of a token response (dates as ISO strings): exactly the fields of docs/http-api.md, "Token response".
 *
 * @example
 * const body = (await res.json()) as TokenResponseJson;
 */
export type TokenResponseJson = z.output<typeof tokenResponseSchema>;

/**
 * JSON of a registration response: the token response plus the tenant.
 *
 * @example
 * const { tenant, accessToken } = (await res.json()) as RegisterResponseJson;
 */
export type RegisterResponseJson = z.output<typeof registerResponseSchema>;

/**
 * JSON of a tenant.
 *
 * @example
 * const tenant = (await res.json()) as TenantJson;
 */
export type TenantJson = z.output<typeof tenantSchema>;

/**
 * JSON of one entry of `GET /sessions`.
 *
 * @example
 * const { sessions } = (await res.json()) as { sessions: SessionJson[] };
 */
export type SessionJson = z.output<typeof sessionSchema>;

/**
 * JSON of a member.
 *
 * @example
 * const { members } = (await res.json()) as { members: MemberJson[] };
 */
export type MemberJson = z.output<typeof memberSchema>;

/**
 * JSON of an invitation.
 *
 * @example
 * const { invitation } = (await res.json()) as { invitation: InvitationJson };
 */
export type InvitationJson = z.output<typeof invitationSchema>;

/**
 * JSON of an audit event.
 *
 * @example
 * const { events } = (await res.json()) as { events: AuditEventJson[]; next: string | null };
 */
export type AuditEventJson = z.output<typeof auditEventSchema>;
