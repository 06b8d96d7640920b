// The problem details every error is answered with (RFC 9457), with the extension members of the second
// factor. Loads nothing but zod at run time, as the rest of the contract.
import { z } from 'zod';
import { fieldErrorCodeSchema, mfaMethodSchema, problemCodeSchema } from './contract-parts.js';

/**
 * One field error of a `validation_failed` problem.
 *
 * @example
 * const error = fieldErrorSchema.parse(problem.errors[0]);
 */
export const fieldErrorSchema = z
  .object({
    field: z.string().meta({ description: "The input field (`'body'` for the body as a whole)." }),
    code: fieldErrorCodeSchema,
    message: z.string().meta({ description: 'A sentence for people; never parse it.' }),
  })
  .meta({ id: 'FieldError', description: 'Why one field was refused.' });

/**
 * RFC 9457 problem details, as every error is answered.
 *
 * @example
 * const problem = problemSchema.parse(await res.json());
 * if (problem.code === 'rate_limited') retryLater();
 */
export const problemSchema = z
  .object({
    type: z.literal('about:blank'),
    title: z.string().meta({ description: 'The HTTP reason phrase.' }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status, repeated.' }),
    code: problemCodeSchema,
    detail: z.string().meta({ description: 'A sentence for people; never parse it.' }),
    errors: z
      .array(fieldErrorSchema)
      .min(1)
      .optional()
      .meta({ description: 'Field errors of a validation_failed.' }),
    mfaToken: z.string().optional().meta({
      description:
        '`mfa_required`, `mfa_setup_required`: the token that answers the challenge (opaque, single use).',
    }),
    methods: z
      .array(mfaMethodSchema)
      .optional()
      .meta({ description: '`mfa_required`: the second factors the user can answer with.' }),
    expiresIn: z
      .int()
      .min(1)
      .optional()
      .meta({ description: '`mfa_required`, `mfa_setup_required`: seconds the `mfaToken` stays valid.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details.' });
