import type { InputLimits } from 'tenant-auth-core';
import { z } from 'zod';
import { createApiKeyRequestSchema } from './api-key-contract.js';
import { auditCursor, auditEventTypeSchema, mfaMethodSchema, roleSchema } from './contract-parts.js';
import { credentialSchema, passkeySchemas } from './passkey-contract.js';
import { MAX_TOKEN_LENGTH } from './problem-codes.js';
import { setScimGroupRolesRequestSchema } from './scim-contract.js';
import { ssoRequestSchemas } from './sso-contract.js';
import {
  createWebhookRequestSchema,
  updateWebhookRequestSchema,
  webhookDeliveryQuerySchema,
} from './webhook-contract.js';

/** The fields several request bodies share, with the limits of the `TenantAuth`. */
function sharedFields(limits: InputLimits) {
  const email = z.string().max(limits.emailMaxLength).meta({
    description: 'Email address; trimmed and lower-cased (ASCII letters only).',
    format: 'email',
  });
  const deviceInfo = z
    .string()
    .max(limits.deviceInfoMaxLength)
    .optional()
    .meta({ description: 'Free text naming the device; default: a summary of the user agent.' });
  const newPassword = z
    .string()
    .min(limits.passwordMinLength)
    .max(limits.passwordMaxLength)
    .meta({ description: 'Password; see the password policy.' });
  const currentPassword = z
    .string()
    .max(limits.loginFieldMaxLength)
    .meta({ description: 'The current password (re-authentication).' });
  const oneTimeToken = z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .meta({ description: 'The token from the link of the email (`?token=`).' });
  const mfaToken = z
    .string()
    .max(MAX_TOKEN_LENGTH)
    .meta({ description: 'The `mfaToken` of an `mfa_required` or `mfa_setup_required` answer.' });
  const code = z.string().max(limits.loginFieldMaxLength).meta({
    description: 'A 6-digit TOTP code, or a recovery code (case and dashes ignored).',
  });
  return { email, deviceInfo, newPassword, currentPassword, oneTimeToken, mfaToken, code };
}

type SharedFields = ReturnType<typeof sharedFields>;

/** Registration, login and refresh. */
function credentialSchemas(limits: InputLimits, { email, newPassword, deviceInfo }: SharedFields) {
  return {
    register: z
      .object({
        email,
        password: newPassword,
        tenantName: z
          .string()
          .min(1)
          .max(limits.tenantNameMaxLength)
          .optional()
          .meta({ description: 'Tenant name; the slug is derived from it. Default: the email local part.' }),
        deviceInfo,
      })
      .meta({ id: 'RegisterRequest', description: 'The body of `POST /auth/register`.' }),
    login: z
      .object({
        email: z
          .string()
          .max(limits.loginFieldMaxLength)
          .meta({ description: 'The email address of the account.' }),
        password: z.string().max(limits.loginFieldMaxLength).meta({ description: 'Its password.' }),
        deviceInfo,
      })
      .meta({ id: 'LoginRequest', description: 'The body of `POST /auth/login`.' }),
    refresh: z
      .object({
        refreshToken: z.string().max(MAX_TOKEN_LENGTH).optional().meta({
          description:
            'The refresh token, when it is sent neither as `Authorization: Bearer` nor as the cookie.',
        }),
      })
      .meta({
        id: 'RefreshRequest',
        description:
          'The body of `POST /auth/refresh` (optional: the token may come as a header or cookie instead).',
      }),
  };
}

/** The members and invitations of a tenant. */
function memberSchemas({ email, oneTimeToken, newPassword, deviceInfo }: SharedFields) {
  return {
    changeMemberRole: z.object({ role: roleSchema.optional(), active: z.boolean().optional() }).meta({
      id: 'ChangeMemberRoleRequest',
      description: 'The body of `PATCH /tenants/me/members/{userId}`.',
    }),
    createInvitation: z
      .object({ email, role: roleSchema })
      .meta({ id: 'CreateInvitationRequest', description: 'The body of `POST /tenants/me/invitations`.' }),
    acceptInvitation: z
      .object({ token: oneTimeToken, password: newPassword, deviceInfo })
      .meta({ id: 'AcceptInvitationRequest', description: 'The body of `POST /auth/invitations/accept`.' }),
  };
}

/** The password and the email address of an account, and the links mailed for them. */
function passwordAndEmailSchemas({ email, oneTimeToken, newPassword, currentPassword }: SharedFields) {
  return {
    forgotPassword: z
      .object({ email })
      .meta({ id: 'ForgotPasswordRequest', description: 'The body of `POST /auth/password/forgot`.' }),
    resetPassword: z
      .object({ token: oneTimeToken, password: newPassword })
      .meta({ id: 'ResetPasswordRequest', description: 'The body of `POST /auth/password/reset`.' }),
    changePassword: z
      .object({ currentPassword: currentPassword, newPassword })
      .meta({ id: 'ChangePasswordRequest', description: 'The body of `POST /auth/password/change`.' }),
    verifyEmail: z
      .object({ token: oneTimeToken })
      .meta({ id: 'VerifyEmailRequest', description: 'The body of `POST /auth/email/verify`.' }),
    changeEmail: z
      .object({ newEmail: email, password: currentPassword })
      .meta({ id: 'ChangeEmailRequest', description: 'The body of `POST /auth/email/change`.' }),
    confirmEmailChange: z.object({ token: oneTimeToken }).meta({
      id: 'ConfirmEmailChangeRequest',
      description: 'The body of `POST /auth/email/change/confirm`.',
    }),
  };
}

/** The second factor, re-authentication and the tenant's security policy. */
function mfaSchemas({ mfaToken, code, deviceInfo, currentPassword }: SharedFields) {
  return {
    verifyMfa: z
      .object({
        mfaToken,
        method: mfaMethodSchema,
        code: code.optional(),
        credential: credentialSchema().optional(),
        deviceInfo,
      })
      .meta({ id: 'VerifyMfaRequest', description: 'The body of `POST /auth/mfa/verify`.' }),
    setupTotp: z
      .object({ mfaToken: mfaToken.optional() })
      .meta({ id: 'SetupTotpRequest', description: 'The body of `POST /auth/mfa/totp/setup` (optional).' }),
    confirmTotp: z
      .object({ code, mfaToken: mfaToken.optional(), deviceInfo })
      .meta({ id: 'ConfirmTotpRequest', description: 'The body of `POST /auth/mfa/totp/confirm`.' }),
    reauthenticate: z
      .object({
        password: currentPassword.optional(),
        method: mfaMethodSchema.optional(),
        code: code.optional(),
        credential: credentialSchema().optional(),
      })
      .meta({ id: 'ReauthenticateRequest', description: 'The body of `POST /auth/reauthenticate`.' }),
    setSecurityPolicy: z
      .object({ requireMfa: z.boolean() })
      .meta({ id: 'SetSecurityPolicyRequest', description: 'The body of `PATCH /tenants/me/security`.' }),
  };
}

/** Account deletion, and the queries of the listing routes. */
function otherSchemas({ currentPassword }: SharedFields) {
  return {
    deleteAccount: z
      .object({
        password: currentPassword.optional().meta({
          description:
            'The current password. A user SSO provisioned (no password) leaves it out after a recent `POST /auth/sso/reauthenticate`.',
        }),
      })
      .meta({ id: 'DeleteAccountRequest', description: 'The body of `DELETE /users/me`.' }),
    /** The query of `DELETE /sessions`. */
    revokeAllSessionsQuery: z
      .object({
        except: z
          .literal('current')
          .optional()
          .meta({ description: "`current` keeps the caller's own session." }),
      })
      .meta({ id: 'RevokeAllSessionsQuery', description: 'The query of `DELETE /sessions`.' }),
    /** The query of `GET /tenants/me/audit-events`. */
    auditEventQuery: z
      .object({
        limit: z.int().min(1).max(200).optional().meta({ description: 'Page size, 1 to 200; default 50.' }),
        before: auditCursor().optional().meta({ description: 'The `next` cursor of the previous page.' }),
        type: auditEventTypeSchema.optional(),
        userId: z.uuid().optional().meta({ description: 'Events this user did or underwent.' }),
      })
      .meta({ id: 'AuditEventQuery', description: 'The query of `GET /tenants/me/audit-events`.' }),
  };
}

/**
 * The request bodies of the routes, with the limits of the `TenantAuth` they are served by. They
 * document the contract (OpenAPI); core validates the values, with the same limits.
 *
 * @example
 * const { register } = requestSchemas(auth.inputLimits);
 * register.parse({ email: 'ada@example.com', password: 'Correct-Horse-42' });
 */
export function requestSchemas(limits: InputLimits) {
  const fields = sharedFields(limits);
  const credentials = credentialSchemas(limits, fields);
  const members = memberSchemas(fields);
  const passwordAndEmail = passwordAndEmailSchemas(fields);
  const mfa = mfaSchemas(fields);
  const other = otherSchemas(fields);
  const passkeys = passkeySchemas(fields);
  const sso = ssoRequestSchemas(fields.email);
  // Named one by one, not spread: the inferred type keeps the contract's order (the API report).
  return {
    register: credentials.register,
    login: credentials.login,
    refresh: credentials.refresh,
    changeMemberRole: members.changeMemberRole,
    createInvitation: members.createInvitation,
    acceptInvitation: members.acceptInvitation,
    forgotPassword: passwordAndEmail.forgotPassword,
    resetPassword: passwordAndEmail.resetPassword,
    changePassword: passwordAndEmail.changePassword,
    verifyEmail: passwordAndEmail.verifyEmail,
    changeEmail: passwordAndEmail.changeEmail,
    confirmEmailChange: passwordAndEmail.confirmEmailChange,
    verifyMfa: mfa.verifyMfa,
    setupTotp: mfa.setupTotp,
    confirmTotp: mfa.confirmTotp,
    reauthenticate: mfa.reauthenticate,
    setSecurityPolicy: mfa.setSecurityPolicy,
    passkeyRegistrationOptions: passkeys.passkeyRegistrationOptions,
    addPasskey: passkeys.addPasskey,
    passkeyLogin: passkeys.passkeyLogin,
    mfaPasskeyOptions: passkeys.mfaPasskeyOptions,
    deleteAccount: other.deleteAccount,
    /** The query of `DELETE /sessions`. */
    revokeAllSessionsQuery: other.revokeAllSessionsQuery,
    /** The query of `GET /tenants/me/audit-events`. */
    auditEventQuery: other.auditEventQuery,
    addDomain: sso.addDomain,
    configureSso: sso.configureSso,
    startSso: sso.startSso,
    reauthenticateSso: sso.reauthenticateSso,
    /** The form body of `POST /auth/sso/saml/{tenantId}/acs`. */
    samlAcsForm: sso.samlAcsForm,
    /** The query of `GET /auth/sso/callback`. */
    ssoCallbackQuery: sso.ssoCallbackQuery,
    createApiKey: createApiKeyRequestSchema,
    createWebhook: createWebhookRequestSchema,
    updateWebhook: updateWebhookRequestSchema,
    /** The query of `GET /tenants/me/webhooks/:id/deliveries`. */
    webhookDeliveryQuery: webhookDeliveryQuerySchema,
    setScimGroupRoles: setScimGroupRolesRequestSchema,
  };
}
