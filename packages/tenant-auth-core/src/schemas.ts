import { z } from 'zod';
import { DEVICE_INFO_MAX_LENGTH } from './device-info.js';
import { type FieldError, type FieldErrorCode, validationError } from './errors.js';

/** Request body of registration. Unknown fields (a `tenantId`, a `role`) are dropped. */
export const registerInputSchema = z
  .object({
    email: z
      .string()
      .meta({ description: 'Email address; normalised by trimming and lower-casing.', format: 'email' }),
    password: z.string().max(1024).meta({ description: 'Password; see the password policy.' }),
    tenantName: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Tenant name; the slug is derived from it.' }),
    deviceInfo: z
      .string()
      .max(DEVICE_INFO_MAX_LENGTH)
      .optional()
      .meta({ description: 'Free text naming the device.' }),
  })
  .meta({ id: 'RegisterRequest' });

/** Request body of login. */
export const loginInputSchema = z
  .object({
    email: z.string().max(1024),
    password: z.string().max(1024),
    deviceInfo: z.string().max(DEVICE_INFO_MAX_LENGTH).optional(),
  })
  .meta({ id: 'LoginRequest' });

/** Request body of refresh (the token may come from a cookie or the Authorization header instead). */
export const refreshInputSchema = z
  .object({ refreshToken: z.string().max(8192).optional() })
  .meta({ id: 'RefreshRequest' });

export type RegisterInput = z.infer<typeof registerInputSchema>;
export type LoginInput = z.infer<typeof loginInputSchema>;

function issueCode(issue: z.core.$ZodIssue, input: unknown): FieldErrorCode {
  const [first] = issue.path;
  if (issue.code === 'invalid_type') {
    const value =
      typeof input === 'object' && input !== null && first !== undefined
        ? (input as Record<PropertyKey, unknown>)[first]
        : input;
    return value === undefined || value === null ? 'required' : 'invalid_type';
  }
  if (issue.code === 'too_big') return 'too_long';
  if (issue.code === 'too_small') return 'too_short';
  return 'invalid_value';
}

/**
 * Parses `input` with `schema`, or fails with `validation_failed` listing every field error.
 *
 * @example const body = parseInput(loginInputSchema, ctx.request.body);
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw validationError([
      { field: 'body', code: 'invalid_type', message: 'The body must be a JSON object.' },
    ]);
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => {
    const code = issueCode(issue, input);
    return {
      field: issue.path.map(String).join('.') || 'body',
      code,
      message: code === 'required' ? 'This field is required.' : issue.message,
    };
  });
  throw validationError(errors);
}
