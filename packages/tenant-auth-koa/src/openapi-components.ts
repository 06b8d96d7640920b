// The zod schemas of the contract as OpenAPI components and parameters (zod 4's JSON Schema output).
import { z } from 'zod';
import {
  acceptedSchema,
  actorTypeSchema,
  addPasskeyResponseSchema,
  amrSchema,
  apiKeyListSchema,
  apiKeySchema,
  auditEventPageSchema,
  auditEventSchema,
  auditEventTypeSchema,
  createdApiKeySchema,
  creationOptionsSchema,
  fieldErrorCodeSchema,
  fieldErrorSchema,
  healthSchema,
  invitationListSchema,
  invitationResponseSchema,
  invitationSchema,
  jwksSchema,
  memberListSchema,
  memberSchema,
  meSchema,
  mfaMethodSchema,
  passkeyListSchema,
  passkeySchema,
  problemCodeSchema,
  problemSchema,
  publicUserSchema,
  recoveryCodesSchema,
  registerResponseSchema,
  requestOptionsSchema,
  revokedCountSchema,
  roleSchema,
  securityPolicySchema,
  sessionListSchema,
  sessionSchema,
  tenantSchema,
  tokenResponseSchema,
  totpConfirmResponseSchema,
  totpSetupSchema,
} from './http-contract.js';
import {
  domainListSchema,
  domainResponseSchema,
  domainSchema,
  ssoConnectionSchema,
  ssoResponseSchema,
  ssoStartSchema,
} from './sso-contract.js';

/** @internal A JSON object of the document. */
export type JsonObject = Record<string, unknown>;

/** @internal Where the named schemas are. */
export const SCHEMAS = '#/components/schemas/';
/** @internal A reference to a named schema. */
export const REF = (name: string) => ({ $ref: `${SCHEMAS}${name}` });
/** @internal A reference to a shared response. */
export const RESPONSE = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** @internal The named schemas of the responses: every schema with an `id` that a response uses, nested ones too. */
export const RESPONSE_SCHEMAS: readonly z.ZodType[] = [
  roleSchema,
  publicUserSchema,
  amrSchema.element,
  tokenResponseSchema.shape.session,
  tokenResponseSchema,
  registerResponseSchema,
  tenantSchema,
  sessionSchema,
  sessionListSchema,
  revokedCountSchema,
  memberSchema,
  memberListSchema,
  invitationSchema,
  invitationResponseSchema,
  invitationListSchema,
  auditEventTypeSchema,
  actorTypeSchema,
  auditEventSchema,
  auditEventPageSchema,
  acceptedSchema,
  jwksSchema.shape.keys.element,
  jwksSchema,
  healthSchema,
  mfaMethodSchema,
  totpSetupSchema,
  recoveryCodesSchema,
  totpConfirmResponseSchema,
  meSchema.shape.mfa,
  meSchema,
  securityPolicySchema,
  domainSchema.shape.verification,
  domainSchema,
  domainResponseSchema,
  domainListSchema,
  ssoConnectionSchema,
  ssoResponseSchema,
  ssoStartSchema,
  apiKeySchema,
  createdApiKeySchema,
  apiKeyListSchema,
  fieldErrorCodeSchema,
  fieldErrorSchema,
  problemCodeSchema,
  problemSchema,
  passkeySchema,
  passkeyListSchema,
  addPasskeyResponseSchema,
  creationOptionsSchema,
  requestOptionsSchema,
];

/** @internal The id of a named schema. */
export function idOf(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof id !== 'string') throw new Error('tenant-auth-koa: a schema of the OpenAPI document has no id');
  return id;
}

/**
 * @internal Converts named zod schemas to components in one pass, so that they refer to each other by `$ref`.
 *
 * Response objects are left open (no `additionalProperties: false`, which zod's output mode would add):
 * a later minor version may add a field, and clients must ignore fields they do not know. It is also what
 * lets `RegisterResponse` extend `TokenResponse` with `allOf`. Objects declared strict in zod stay closed.
 */
export function toComponents(
  schemas: readonly z.ZodType[],
  io: 'input' | 'output',
): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const schema of schemas) registry.add(schema, { id: idOf(schema) });
  const converted = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `${SCHEMAS}${id}`,
    override(ctx) {
      const def = ctx.zodSchema._zod.def as { type: string; catchall?: unknown };
      if (
        def.type === 'object' &&
        def.catchall === undefined &&
        ctx.jsonSchema.additionalProperties === false
      ) {
        delete ctx.jsonSchema.additionalProperties;
      }
    },
  }).schemas as Record<string, JsonObject>;
  if ('__shared' in converted) {
    throw new Error('tenant-auth-koa: a named schema of the OpenAPI document is missing from its list');
  }
  const out: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries(converted)) {
    const { $schema: _schema, $id: _id, ...rest } = schema;
    out[name] = rest;
  }
  return out;
}

/** @internal The properties of an object schema as OpenAPI query parameters. */
export function queryParameters(schema: z.ZodObject): JsonObject[] {
  return Object.entries(schema.shape).map(([name, property]) => {
    const field = property as z.ZodType;
    const optional = field instanceof z.ZodOptional;
    const inner = optional ? (field.unwrap() as z.ZodType) : field;
    const description = z.globalRegistry.get(field)?.description ?? z.globalRegistry.get(inner)?.description;
    // A schema with an id is referred to by its component, as everywhere else.
    const named = z.globalRegistry.get(inner)?.id;
    const {
      $schema: _schema,
      description: _description,
      ...json
    } = z.toJSONSchema(inner, {
      io: 'input',
      target: 'draft-2020-12',
    }) as JsonObject;
    return {
      name,
      in: 'query',
      required: !optional,
      ...(description === undefined ? {} : { description }),
      schema: typeof named === 'string' ? REF(named) : json,
    };
  });
}
