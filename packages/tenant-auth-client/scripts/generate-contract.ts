// Generates src/contract.generated.ts: the request and response types of the HTTP contract, and the
// table of its operations, from the OpenAPI document that tenant-auth-koa derives from its operation table
// and zod schemas (scripts/openapi-document.ts at the repository root). One source: the types are never
// written by hand, and the client needs neither zod nor tenant-auth-koa at run time.
//
//   pnpm --filter tenant-auth-client generate      # rewrites src/contract.generated.ts
//
// The client's tests regenerate it in memory and fail when the committed file differs.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referenceOpenApiDocument } from '../../../scripts/openapi-document.js';

type Json = Record<string, unknown>;

const here = dirname(fileURLToPath(import.meta.url));
/** Where the generated module goes. */
export const CONTRACT_FILE = resolve(here, '../src/contract.generated.ts');

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const literal = (value: unknown) => JSON.stringify(value).replaceAll('"', "'");
const isIdentifier = (name: string) => /^[A-Za-z_$][\w$]*$/.test(name);
const key = (name: string) => (isIdentifier(name) ? name : literal(name));
const constantName = (typeName: string) =>
  `${typeName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}S`;

/** JSDoc lines of a schema: its description and the constraints a caller must know. */
function docLines(schema: Json): string[] {
  const lines: string[] = [];
  if (typeof schema.description === 'string') lines.push(schema.description);
  const facts: string[] = [];
  if (schema.format === 'uuid') facts.push('A UUID.');
  if (schema.format === 'date-time' && schema.description === undefined) facts.push('ISO 8601 date-time.');
  if (schema.format === 'email') facts.push('An email address.');
  const { minLength, maxLength, minimum, maximum, minItems } = schema as Record<string, number | undefined>;
  if (minLength !== undefined && maxLength !== undefined)
    facts.push(`${minLength} to ${maxLength} characters.`);
  else if (maxLength !== undefined) facts.push(`At most ${maxLength} characters.`);
  else if (minLength !== undefined) facts.push(`At least ${minLength} characters.`);
  if (minimum !== undefined && maximum !== undefined) facts.push(`An integer from ${minimum} to ${maximum}.`);
  else if (minimum !== undefined) facts.push(`At least ${minimum}.`);
  if (minItems !== undefined) facts.push(`At least ${minItems} item(s) when present.`);
  if (typeof schema.pattern === 'string' && schema.format === undefined)
    facts.push(`Matches \`${schema.pattern}\`.`);
  if (facts.length > 0) lines.push(facts.join(' '));
  return lines;
}

/** A JSDoc block: one paragraph per entry (an entry may hold several lines, such as an example). */
function jsdoc(entries: string[], indent = ''): string {
  if (entries.length === 0) return '';
  const paragraphs = entries.map((entry) =>
    entry
      .split('\n')
      .map((l) => `${indent} *${l === '' ? '' : ` ${l.replaceAll('*/', '*\\/')}`}`)
      .join('\n'),
  );
  return `${indent}/**\n${paragraphs.join(`\n${indent} *\n`)}\n${indent} */\n`;
}

/** A value as a TypeScript literal (single quotes, one property a line). */
function print(value: unknown, indent = ''): string {
  if (typeof value === 'string') return literal(value);
  if (Array.isArray(value))
    return value.length === 0 ? '[]' : `[${value.map((v) => print(v, indent)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${print(v, inner)},`).join('\n')}\n${indent}}`;
  }
  return String(value);
}

/** The TypeScript type of a schema, inline. */
function typeOf(schema: Json, indent: string): string {
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches = (schema.anyOf ?? schema.oneOf) as Json[];
    return branches.map((b) => typeOf(b, indent)).join(' | ');
  }
  if (Array.isArray(schema.allOf)) return (schema.allOf as Json[]).map((b) => typeOf(b, indent)).join(' & ');
  if (schema.const !== undefined) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  if (Array.isArray(schema.type)) {
    return (schema.type as string[]).map((type) => typeOf({ ...schema, type }, indent)).join(' | ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf((schema.items as Json) ?? {}, indent);
      return /[|&\s]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return objectBody(schema, indent);
    default:
      return 'unknown';
  }
}

/** `{ a: string; b?: number }`, one property a line with its JSDoc. */
function objectBody(schema: Json, indent: string): string {
  const properties = (schema.properties as Record<string, Json> | undefined) ?? {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(
    ([name, property]) =>
      `${jsdoc(docLines(property), inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};`,
  );
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: unknown;`);
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** Sample string values by property name, for the examples; anything else is `'…'`. */
const SAMPLE_TEXT: Record<string, string> = {
  email: 'ada@example.com',
  newEmail: 'ada@analytical.example',
  password: 'Correct-Horse-Battery-42',
  newPassword: 'Correct-Horse-Battery-43',
  currentPassword: 'Correct-Horse-Battery-42',
  token: 'the-token-of-the-link',
  accessToken: 'eyJhbGciOi…',
  refreshToken: 'eyJhbGciOi…',
  name: 'Analytical Engines',
  slug: 'analytical-engines',
  deviceInfo: 'Firefox on Linux',
  title: 'Bad Request',
  detail: 'The request is invalid.',
  field: 'password',
  message: 'At least 12 characters.',
  kty: 'OKP',
};

/** Sample numbers by property name. */
const SAMPLE_NUMBER: Record<string, number> = {
  expiresIn: 900,
  refreshExpiresIn: 604800,
  status: 400,
  revoked: 2,
  limit: 50,
};

/** A small value of a schema (required properties only), for the `@example` of its type. */
function sample(schema: Json, components: Record<string, Json>, property = '', depth = 0): unknown {
  if (typeof schema.$ref === 'string') {
    return sample(components[refName(schema.$ref)] ?? {}, components, property, depth + 1);
  }
  if (depth > 8) return null;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf) || (Array.isArray(schema.type) && schema.type.includes('null')))
    return null;
  if (Array.isArray(schema.allOf)) {
    return Object.assign(
      {},
      ...(schema.allOf as Json[]).map((p) => sample(p, components, property, depth + 1)),
    );
  }
  switch (schema.type) {
    case 'string':
      if (schema.format === 'uuid') return '0190f5c8-3a3c-7a4b-9e2f-3c4d5e6f7a8b';
      if (schema.format === 'date-time') return '2026-05-01T12:00:00.000Z';
      return SAMPLE_TEXT[property] ?? '…';
    case 'integer':
    case 'number':
      return SAMPLE_NUMBER[property] ?? (typeof schema.minimum === 'number' ? schema.minimum : 1);
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const properties = (schema.properties as Record<string, Json> | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      return Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => required.has(name))
          .map(([name, p]) => [name, sample(p, components, name, depth + 1)]),
      );
    }
    default:
      return null;
  }
}

/** One component: an interface for an object, a type alias (and a constant) for the rest. */
function component(name: string, schema: Json, components: Record<string, Json>): string {
  const example = `@example\nconst example: ${name} = ${print(sample(schema, components))};`;
  const doc = jsdoc([...docLines(schema), example]);
  const properties = schema.properties as Json | undefined;
  if (schema.type === 'object' && properties !== undefined && Object.keys(properties).length > 0) {
    return `${doc}export interface ${name} ${objectBody(schema, '')}\n`;
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf as Json[];
    const bases = parts.filter((p) => typeof p.$ref === 'string').map((p) => refName(p.$ref as string));
    const own = parts.filter((p) => typeof p.$ref !== 'string');
    if (own.every((p) => p.type === 'object')) {
      const merged: Json = {
        type: 'object',
        properties: Object.assign({}, ...own.map((p) => p.properties ?? {})),
        required: own.flatMap((p) => (p.required as string[] | undefined) ?? []),
      };
      return `${doc}export interface ${name} extends ${bases.join(', ')} ${objectBody(merged, '')}\n`;
    }
  }
  const alias = `${doc}export type ${name} = ${typeOf(schema, '')};\n`;
  if (!Array.isArray(schema.enum)) return alias;
  return `${alias}\n${jsdoc([`Every {@link ${name}}, in the order of the contract.`, `@example\nif (${constantName(name)}.includes(value as ${name})) use(value as ${name});`])}export const ${constantName(name)}: readonly ${name}[] = [${schema.enum.map(literal).join(', ')}];\n`;
}

interface Operation {
  id: string;
  method: string;
  path: string;
  auth: 'none' | 'access' | 'refresh';
  success: number;
  request: string | undefined;
  requestRequired: boolean;
  response: string | undefined;
  query: { name: string; required: boolean; schema: Json; description?: string }[];
  params: string[];
  summary: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const security = (op.security as Json[]) ?? [];
      const auth =
        security.length === 0
          ? 'none'
          : security.some((s) => 'refreshCookie' in s || Object.keys(s).length === 0)
            ? 'refresh'
            : 'access';
      const responses = op.responses as Record<string, Json>;
      const successKey = Object.keys(responses).find((s) => s.startsWith('2'));
      // A browser navigation answered with a redirect (the SSO callback) is no call of the client.
      if (!successKey && responses['303']) continue;
      if (!successKey) throw new Error(`${method} ${path}: no success response`);
      const success = responses[successKey] as Json;
      const content = success.content as Record<string, Json> | undefined;
      // A document for another party, not JSON (SAML's service provider metadata), is no call of the client.
      if (content && !('application/json' in content)) continue;
      const responseSchema = content?.['application/json']?.schema as Json | undefined;
      const body = op.requestBody as Json | undefined;
      const bodySchema = (body?.content as Record<string, Json> | undefined)?.['application/json']?.schema as
        | Json
        | undefined;
      const parameters = (op.parameters as Json[] | undefined) ?? [];
      out.push({
        id: op.operationId as string,
        method: method.toUpperCase(),
        path,
        auth,
        success: Number(successKey),
        request: bodySchema ? refName(bodySchema.$ref as string) : undefined,
        requestRequired: body?.required === true,
        response:
          responseSchema === undefined
            ? undefined
            : typeof responseSchema.$ref === 'string'
              ? refName(responseSchema.$ref)
              : 'Record<string, unknown>',
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({
            name: p.name as string,
            required: p.required === true,
            schema: p.schema as Json,
            ...(typeof p.description === 'string' ? { description: p.description } : {}),
          })),
        params: parameters.filter((p) => p.in === 'path').map((p) => p.name as string),
        summary: op.summary as string,
      });
    }
  }
  return out;
}

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** The generated module, formatted as the repository formats TypeScript. */
export function generateContract(): string {
  const doc = referenceOpenApiDocument();
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  const info = doc.info as { version: string };
  const operations = operationsOf(doc);
  const parts: string[] = [
    `// Generated by scripts/generate-contract.ts from the OpenAPI document of tenant-auth-koa (its zod
// schemas), version ${info.version}. Do not edit: run \`pnpm --filter tenant-auth-client generate\`.
`,
  ];
  for (const [name, schema] of Object.entries(schemas)) parts.push(component(name, schema, schemas));

  for (const op of operations.filter((o) => o.query.length > 0)) {
    const schema: Json = {
      type: 'object',
      properties: Object.fromEntries(
        op.query.map((q) => [
          q.name,
          { ...q.schema, ...(q.description === undefined ? {} : { description: q.description }) },
        ]),
      ),
      required: op.query.filter((q) => q.required).map((q) => q.name),
    };
    parts.push(
      `${jsdoc([`The query of \`${op.method} ${op.path}\`.`, `@example\nconst query: ${pascal(op.id)}Query = {};`])}export interface ${pascal(op.id)}Query ${objectBody(schema, '')}\n`,
    );
  }

  const names = operations.map((o) => `'${o.id}'`).join(' | ');
  parts.push(
    `${jsdoc(['The id of an operation of the contract (its `operationId`).', "@example\nconst id: OperationId = 'login';"])}export type OperationId = ${names};\n`,
  );
  parts.push(
    `${jsdoc([
      'How to call an operation: method, path (with `{param}` placeholders) under the prefix, the token it takes (`access`: the access token; `refresh`: a refresh token; `none`), and the status of success.',
      '@example\nconst { method, path } = OPERATIONS.listSessions;',
    ])}export interface OperationSpec {\n  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';\n  path: string;\n  auth: 'none' | 'access' | 'refresh';\n  success: number;\n}\n`,
  );
  parts.push(
    `${jsdoc(['Every operation of the contract.', "@example\nconst { method, path } = OPERATIONS.login; // 'POST', '/auth/login'"])}export const OPERATIONS: Readonly<Record<OperationId, OperationSpec>> = {\n${operations
      .map(
        (o) =>
          `  ${o.id}: { method: '${o.method}', path: '${o.path}', auth: '${o.auth}', success: ${o.success} },`,
      )
      .join('\n')}\n};\n`,
  );
  parts.push(
    `${jsdoc([
      'The types of each operation: `body` (the JSON request body, `undefined` when it takes none), `query`, `params` (path parameters) and `response` (the JSON of success, `undefined` for an empty answer).',
      "@example\ntype LoginBody = OperationTypes['login']['body'];",
    ])}export interface OperationTypes {\n${operations
      .map((o) => {
        const body = o.request ? (o.requestRequired ? o.request : `${o.request} | undefined`) : 'undefined';
        const query = o.query.length > 0 ? `${pascal(o.id)}Query` : 'undefined';
        const params =
          o.params.length > 0 ? `{ ${o.params.map((p) => `${p}: string`).join('; ')} }` : 'undefined';
        return `  /** ${o.method} ${o.path}: ${o.summary} */\n  ${o.id}: { body: ${body}; query: ${query}; params: ${params}; response: ${o.response ?? 'undefined'} };`;
      })
      .join('\n')}\n}\n`,
  );
  return format(parts.join('\n'));
}

/** Formats with the repository's Biome, as `biome check --write` would. */
function format(source: string): string {
  const require = createRequire(import.meta.url);
  const biomePackage = require.resolve('@biomejs/biome/package.json', { paths: [resolve(here, '../../..')] });
  const bin = resolve(dirname(biomePackage), 'bin/biome');
  const result = spawnSync(process.execPath, [bin, 'format', `--stdin-file-path=${CONTRACT_FILE}`], {
    input: source,
    encoding: 'utf8',
    cwd: resolve(here, '../../..'),
  });
  if (result.status !== 0) throw new Error(`biome format failed:\n${result.stderr}`);
  return result.stdout;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(CONTRACT_FILE, generateContract());
  console.log(`generate-contract: wrote ${CONTRACT_FILE}`);
}
