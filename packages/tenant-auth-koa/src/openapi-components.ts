// The zod schemas of the contract as OpenAPI components and parameters (zod 4's JSON Schema output).
import { z } from 'zod';

/** @internal A JSON object of the document. */
export type JsonObject = Record<string, unknown>;

/** @internal Where the named schemas are. */
export const SCHEMAS = '#/components/schemas/';
/** @internal A reference to a named schema. */
export const REF = (name: string) => ({ $ref: `${SCHEMAS}${name}` });
/** @internal A reference to a shared response. */
export const RESPONSE = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** Whether a value of a zod definition is a schema (not a check or a plain value). */
const isSchema = (value: unknown): value is z.ZodType => value instanceof z.ZodType;

/** The schemas a schema is made of: its object's properties, its array's element, its union's options, .... */
function partsOf(schema: z.ZodType): z.ZodType[] {
  const parts: z.ZodType[] = [];
  for (const [key, value] of Object.entries(schema._zod.def as unknown as Record<string, unknown>)) {
    if (key === 'checks') continue;
    if (isSchema(value)) parts.push(value);
    else if (Array.isArray(value)) parts.push(...value.filter(isSchema));
    else if (key === 'shape' && typeof value === 'object' && value !== null)
      parts.push(...Object.values(value).filter(isSchema));
  }
  return parts;
}

/**
 * @internal Every named schema (one with an `id`) that the given schemas are made of, themselves included,
 * each once and after the named schemas it is made of: the components a document of them needs, so the
 * list of components is derived from what the operations answer and take, never written out.
 *
 * @example
 * namedSchemas([tokenResponseSchema]); // [roleSchema, publicUserSchema, …, tokenResponseSchema]
 */
export function namedSchemas(roots: readonly z.ZodType[]): z.ZodType[] {
  const named = new Map<string, z.ZodType>();
  const seen = new Set<z.ZodType>();
  const visit = (schema: z.ZodType) => {
    if (seen.has(schema)) return;
    seen.add(schema);
    for (const part of partsOf(schema)) visit(part);
    const id = z.globalRegistry.get(schema)?.id;
    if (typeof id === 'string' && !named.has(id)) named.set(id, schema);
  };
  for (const root of roots) visit(root);
  return [...named.values()];
}

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
