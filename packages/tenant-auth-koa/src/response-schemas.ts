import { z } from 'zod';

const isoDate = () => z.iso.datetime({ offset: false }).meta({ description: 'ISO 8601 date-time, UTC.' });

/** `user` of a token response. */
export const publicUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  tenantId: z.string(),
});

/** A tenant as returned by `/tenants/me`, `/tenants/:id` and registration. */
export const tenantSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  createdAt: isoDate(),
});

/** The token response of login, registration and refresh (API.md). */
export const tokenResponseSchema = z.object({
  user: publicUserSchema,
  session: z.object({ id: z.string(), expiresAt: isoDate() }),
  accessToken: z.string().meta({ description: 'Access JWT (15 minutes by default).' }),
  refreshToken: z.string().meta({ description: 'Refresh JWT, rotated on every refresh.' }),
  tokenType: z.literal('Bearer'),
  expiresIn: z.int().meta({ description: 'Access token lifetime in seconds.' }),
  refreshExpiresIn: z.int().meta({ description: 'Refresh token lifetime in seconds.' }),
});

/** Registration answers the token response plus the new tenant. */
export const registerResponseSchema = tokenResponseSchema.extend({ tenant: tenantSchema });

/** One entry of `GET /sessions`. */
export const sessionSchema = z.object({
  id: z.string(),
  deviceInfo: z.string(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: isoDate(),
  lastUsedAt: isoDate(),
  expiresAt: isoDate(),
  current: z.boolean().meta({ description: 'Whether this is the session of the calling token.' }),
});

/** `GET /sessions`. */
export const sessionListSchema = z.object({ sessions: z.array(sessionSchema) });

/** `DELETE /sessions`. */
export const revokedCountSchema = z.object({ revoked: z.int().min(0) });

/** `GET /.well-known/jwks.json`. */
export const jwksSchema = z.object({ keys: z.array(z.looseObject({ kty: z.string() })) });

/** `GET /health`. */
export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  database: z.enum(['ok', 'unavailable']),
});

/** One field error of a `validation_failed` problem. */
export const fieldErrorSchema = z.object({
  field: z.string(),
  code: z.string().meta({
    description:
      'invalid_email, email_taken, too_short, too_long, missing_character_classes, contains_personal_info, common_password, required, invalid_type, invalid_value',
  }),
  message: z.string(),
});

/** RFC 9457 problem details, as every error is answered. */
export const problemSchema = z.object({
  type: z.literal('about:blank'),
  title: z.string().meta({ description: 'The HTTP reason phrase.' }),
  status: z.int(),
  code: z.string().meta({ description: 'Stable error code; switch on this.' }),
  detail: z.string(),
  errors: z.array(fieldErrorSchema).optional().meta({ description: 'Field errors of a validation_failed.' }),
});

/** `POST /auth/logout` takes no body; `DELETE /sessions` takes `?except=current`. */
export const revokeAllQuerySchema = z.object({ except: z.literal('current').optional() });
