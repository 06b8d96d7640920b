// The enumerations and formats the request and response schemas of the contract share. Each list of
// values is core's (ROLES, AUDIT_EVENT_TYPES, FIELD_ERROR_CODES, ERROR_CODES): written out here because
// tenant-auth-koa/contract loads nothing but zod at run time (browsers use it), tied to core's types by
// the `satisfies` checks below, and to core's order by contract.test.ts.
import type {
  ActorType,
  AuditEventType,
  AuthMethod,
  FieldErrorCode,
  MfaMethod,
  Role,
  TenantAuthErrorCode,
} from 'tenant-auth-core';
import { z } from 'zod';
import { PROBLEM_CODES, type ProblemCode } from './problem-codes.js';

/** @internal An ISO 8601 date-time, UTC. */
export const isoDate = () =>
  z.iso.datetime({ offset: false }).meta({ description: 'ISO 8601 date-time, UTC.' });

/** @internal Ids are UUIDs (version 7, time-ordered). */
export const id = (description?: string) => z.uuid().meta(description ? { description } : {});

/** @internal A cursor of the audit log: opaque, base64url. */
export const auditCursor = () => z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/**
 * A role: `owner` > `admin` > `member`.
 *
 * @example
 * const role = roleSchema.parse(body.role);
 */
export const roleSchema = z
  .enum(['owner', 'admin', 'member'])
  .meta({ id: 'Role', description: 'A role in the tenant: `owner` > `admin` > `member`.' });

/**
 * What acted in an audit event: a `user` or an `api_key`.
 *
 * @example
 * const actorType = actorTypeSchema.parse(event.actorType);
 */
export const actorTypeSchema = z.enum(['user', 'api_key', 'system', 'scim']).meta({
  id: 'ActorType',
  description:
    "What `actorId` is: a `user`, an `api_key`, the server itself (`system`, `actorId` null), or the tenant's directory (`scim`, `actorId` null).",
});

/**
 * The types of audit event (docs/http-api.md, "Audit log").
 *
 * @example
 * const type = auditEventTypeSchema.parse(url.searchParams.get('type'));
 */
export const auditEventTypeSchema = z
  .enum([
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
  ])
  .meta({ id: 'AuditEventType', description: 'What an audit event records.' });

true satisfies Same<z.infer<typeof roleSchema>, Role>;
true satisfies Same<z.infer<typeof amrSchema>[number], AuthMethod>;
true satisfies Same<z.infer<typeof mfaMethodSchema>, MfaMethod>;
true satisfies Same<z.infer<typeof fieldErrorCodeSchema>, FieldErrorCode>;
// The problem codes are core's error codes that reach a client (not the ones a store raises or a factory
// throws), plus two of the HTTP layer's own.
true satisfies Same<
  Exclude<ProblemCode, 'method_not_allowed' | 'http_error'>,
  Exclude<TenantAuthErrorCode, 'email_taken' | 'slug_taken' | 'invalid_configuration'>
>;

/**
 * The codes a field error can carry (core's `FieldErrorCode`).
 *
 * @example
 * if (fieldErrorCodeSchema.options.includes(error.code)) showHint(error.code);
 */
export const fieldErrorCodeSchema = z
  .enum([
    'invalid_email',
    'email_taken',
    'too_short',
    'too_long',
    'missing_character_classes',
    'contains_personal_info',
    'common_password',
    'required',
    'invalid_type',
    'invalid_value',
    'invalid_or_expired',
    'incorrect',
    'invalid_role',
    'invalid_credential',
    'invalid_domain',
    'issuer_unreachable',
    'invalid_metadata',
    'invalid_certificate',
    'invalid_url',
    'invalid_event',
    'domain_not_verified',
    'unknown_user',
  ])
  .meta({ id: 'FieldErrorCode', description: 'Why a field was refused; switch on this.' });

/**
 * How a session was authenticated (RFC 8176 where it has a word): `pwd` password, `otp` TOTP or recovery
 * code, `hwk` passkey, `sso` single sign-on, `mfa` two factors.
 *
 * @example
 * const strong = amrSchema.parse(body.session.amr).includes('mfa');
 */
export const amrSchema = z
  .array(
    z.enum(['pwd', 'otp', 'hwk', 'sso', 'mfa']).meta({
      id: 'AuthMethod',
      description:
        'How a session was authenticated (RFC 8176): `pwd` password, `otp` TOTP or recovery code, `hwk` passkey, `sso` single sign-on, `mfa` two factors.',
    }),
  )
  .meta({ description: 'How the session was authenticated; a refresh never adds to it.' });

/**
 * A second factor a user can answer a challenge with (core's `MFA_METHODS`).
 *
 * @example
 * const { methods } = problem; if (methods.includes('totp')) askForCode();
 */
export const mfaMethodSchema = z
  .enum(['totp', 'recovery_code', 'passkey'])
  .meta({ id: 'MfaMethod', description: 'A second factor: `totp`, `recovery_code` or `passkey`.' });

/**
 * The `code` of a problem (the `ProblemCode` union).
 *
 * @example
 * const code = problemCodeSchema.parse(body.code);
 */
export const problemCodeSchema = z
  .enum(PROBLEM_CODES)
  .meta({ id: 'ProblemCode', description: 'Stable error code; switch on this.' });

/**
 * @internal Whether two types are the same (each assignable to the other, with the same keys). With
 * `satisfies`, it ties a list or a schema of the contract to core's type: a value or field added,
 * renamed or made optional on either side fails to compile.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;

// The contract's lists are core's types, no more and no less: a type added to core fails to compile here.
true satisfies Same<z.infer<typeof auditEventTypeSchema>, AuditEventType>;
true satisfies Same<z.infer<typeof actorTypeSchema>, ActorType>;
