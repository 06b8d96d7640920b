import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`: under ESM interop the function may sit one level down.
const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

type Json = Record<string, unknown>;

/** What a validator needs of a request. */
export interface CheckedRequest {
  method: string;
  /** The path as sent (with the prefix, and the query string if any). */
  path: string;
}

/** What a validator needs of a response: its body as text, so an empty body is told from `{}`. */
export interface CheckedResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Checks responses against an OpenAPI 3.1 document at run time.
 *
 * @example
 * const validator = createOpenApiValidator(document);
 * const problems = validator.check({ method: 'GET', path: '/api/v1/sessions' }, { status, headers, text });
 */
export interface OpenApiValidator {
  /**
   * What is wrong with a response (empty: it matches the document): a status the operation does not
   * document, a content type or body that does not match the schema of that status (including fields the
   * schema does not name), a required header that is missing or a header whose value does not match.
   */
  check(request: CheckedRequest, response: CheckedResponse): string[];
}

const pointer = (...parts: string[]) =>
  `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/**
 * A validator for the document: JSON Schema 2020-12 through Ajv (with formats: uuid, date-time, email),
 * plus a strictness walk that refuses fields a schema does not name, so an undocumented field fails too.
 * Requests outside the document's server prefix, and CORS preflights, are not checked.
 *
 * @example
 * const problems = createOpenApiValidator(document).check(request, response);
 * if (problems.length > 0) throw new Error(problems.join('\n'));
 */
export function createOpenApiValidator(document: Json): OpenApiValidator {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (ref: string): ValidateFunction => {
    let fn = compiled.get(ref);
    if (!fn) {
      fn = ajv.compile({ $ref: `openapi${ref}` });
      compiled.set(ref, fn);
    }
    return fn;
  };

  const resolve = (value: unknown): Json => {
    let current = value as Json;
    for (let i = 0; i < 20 && typeof current?.$ref === 'string'; i++) {
      const ref = current.$ref as string;
      let target: unknown = document;
      for (const part of ref.slice(2).split('/')) {
        target = (target as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
      }
      current = target as Json;
    }
    return current;
  };

  const servers = document.servers as { url: string }[] | undefined;
  const prefix = (servers?.[0]?.url ?? '').replace(/\/$/, '');
  const paths = document.paths as Record<string, Record<string, Json>>;
  // Static paths before templated ones, as the router matches them (`/tenants/me` before `/tenants/{id}`).
  const templates = Object.keys(paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);

  /** Properties of `value` that `schema` does not name, recursively. */
  const undocumented = (value: unknown, schema: unknown, at: string, out: string[]): void => {
    const s = resolve(schema);
    if (value === null || typeof value !== 'object' || s === undefined) return;
    const branches = [...((s.anyOf as unknown[]) ?? []), ...((s.oneOf as unknown[]) ?? [])].map(resolve);
    if (branches.length > 0) {
      const fitting = branches.find((b) =>
        Array.isArray(value) ? b.type === 'array' : b.type === 'object' || b.allOf || b.properties,
      );
      if (fitting) undocumented(value, fitting, at, out);
      return;
    }
    if (Array.isArray(value)) {
      if (s.items) {
        for (const [i, item] of value.entries()) undocumented(item, s.items, `${at}[${i}]`, out);
      }
      return;
    }
    const parts = [s, ...((s.allOf as unknown[]) ?? []).map(resolve)];
    const properties: Record<string, unknown> = {};
    // An object schema that names no property (`{ type: 'object' }`) is open; one that names some is closed
    // unless it says otherwise (`additionalProperties`), so an undocumented field is caught.
    let open = parts.every((part) => part.properties === undefined && part.additionalProperties !== false);
    for (const part of parts) {
      Object.assign(properties, (part.properties as Json | undefined) ?? {});
      if (part.additionalProperties !== undefined && part.additionalProperties !== false) open = true;
    }
    for (const [key, inner] of Object.entries(value)) {
      if (key in properties) undocumented(inner, properties[key], `${at}.${key}`, out);
      else if (!open) out.push(`${at}.${key} is not in the schema`);
    }
  };

  const checkHeaders = (response: Json, headers: Headers, where: string, out: string[]) => {
    for (const [name, header] of Object.entries((response.headers as Json | undefined) ?? {})) {
      const h = resolve(header);
      const value = headers.get(name);
      if (value === null) {
        if (h.required === true) out.push(`${where}: the required header ${name} is missing`);
        continue;
      }
      const schema = resolve(h.schema) ?? {};
      if (schema.type === 'integer') {
        const n = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
        if (!Number.isSafeInteger(n) || (typeof schema.minimum === 'number' && n < schema.minimum)) {
          out.push(
            `${where}: header ${name}: ${JSON.stringify(value)} is not an integer >= ${schema.minimum}`,
          );
        }
      } else if (schema.const !== undefined && value !== schema.const) {
        out.push(`${where}: header ${name} is ${JSON.stringify(value)}, not ${JSON.stringify(schema.const)}`);
      }
    }
  };

  const checkAgainst = (
    response: Json,
    /** The pointer of the schema of a media type of this response. */
    schemaPointer: (mediaType: string) => string,
    method: string,
    res: CheckedResponse,
    where: string,
  ): string[] => {
    const out: string[] = [];
    checkHeaders(response, res.headers, where, out);
    const content = response.content as Record<string, Json> | undefined;
    if (method === 'HEAD' || content === undefined) {
      if (res.text !== '')
        out.push(`${where}: a body was sent where the document has none: ${res.text.slice(0, 200)}`);
      return out;
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const media = content[type];
    if (!media) {
      out.push(
        `${where}: content type ${JSON.stringify(type)} is not one of ${Object.keys(content).join(', ')}`,
      );
      return out;
    }
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      out.push(`${where}: the body is not JSON: ${res.text.slice(0, 200)}`);
      return out;
    }
    const validate = validatorAt(schemaPointer(type));
    if (!validate(body)) {
      for (const e of validate.errors ?? []) {
        out.push(`${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
      }
    }
    undocumented(body, media.schema, `${where}: body`, out);
    const problem = body as { status?: unknown };
    if (type === 'application/problem+json' && problem.status !== res.status) {
      out.push(`${where}: the problem says status ${String(problem.status)}, the response ${res.status}`);
    }
    if (out.length > 0) out.push(`${where}: the body was ${res.text.slice(0, 500)}`);
    return out;
  };

  /** The schema pointers of the response for a status, through a `$ref` to `components/responses`. */
  const schemaPointers =
    (operationPointer: string, status: string, responses: Json) =>
    (mediaType: string): string => {
      const raw = responses[status] as Json;
      const base = typeof raw.$ref === 'string' ? raw.$ref : `${operationPointer}/responses/${status}`;
      return `${base}/content/${pointer(mediaType).slice(2)}/schema`;
    };

  return {
    check(request, res) {
      const method = request.method.toUpperCase();
      if (method === 'OPTIONS') return [];
      const pathOnly = request.path.split(/[?#]/)[0] ?? '';
      if (pathOnly !== prefix && !pathOnly.startsWith(`${prefix}/`)) return [];
      const path = pathOnly.slice(prefix.length);
      const where = `${method} ${request.path} -> ${res.status}`;
      const found = templates.find((t) => t.regex.test(path));
      const status = String(res.status);
      if (!found) {
        // No route: 404, or what the middleware in front of routing answers (rate limit, errors).
        if (!['404', '429', '500', '503'].includes(status)) {
          return [`${where}: ${path} is no path of the document, and the status is not 404`];
        }
        return checkAgainst(
          { content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
          () => pointer('components', 'schemas', 'Problem'),
          method,
          res,
          where,
        );
      }
      const operations = paths[found.template] ?? {};
      const operationKey = method === 'HEAD' ? 'get' : method.toLowerCase();
      const operation = operations[operationKey];
      if (!operation) {
        // Another method on a documented path: 405, or an answer of the middleware before routing.
        const documented = Object.entries(operations).find(
          ([, op]) => status in ((op.responses as Json | undefined) ?? {}),
        );
        if (!documented || !['400', '405', '413', '415', '429', '500', '503'].includes(status)) {
          return [
            `${where}: ${method} is not an operation of ${found.template}, and ${status} not an answer for it`,
          ];
        }
        const [key, op] = documented;
        const opPointer = pointer('paths', found.template, key);
        const responses = op.responses as Json;
        return checkAgainst(
          resolve(responses[status]),
          schemaPointers(opPointer, status, responses),
          method,
          res,
          where,
        );
      }
      const responses = operation.responses as Json;
      if (!(status in responses)) {
        return [
          `${where}: status ${status} is not documented for ${operationKey.toUpperCase()} ${found.template} (documented: ${Object.keys(responses).join(', ')}); body: ${res.text.slice(0, 300)}`,
        ];
      }
      const opPointer = pointer('paths', found.template, operationKey);
      return checkAgainst(
        resolve(responses[status]),
        schemaPointers(opPointer, status, responses),
        method,
        res,
        where,
      );
    },
  };
}
