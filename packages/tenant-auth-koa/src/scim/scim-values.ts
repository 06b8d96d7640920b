import { scimBadRequest } from './scim-error.js';

/**
 * ASCII letters lower-cased, nothing else touched: attribute names, URNs and keywords are compared
 * this way (RFC 7643 2.1: names are case-insensitive), so no Unicode character folds into an ASCII
 * name (the Kelvin sign `K` lower-cases to `k` with `toLowerCase`).
 */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Whether two attribute names, keywords or URNs are the same, ignoring ASCII case. */
export function sameName(a: string, b: string): boolean {
  return asciiLower(a) === asciiLower(b);
}

/** A JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An object's members by ASCII-lower-cased name (attribute names are case-insensitive); a name given
 * twice in two spellings (`userName` and `username`) is refused rather than one of them chosen.
 */
export function membersOf(object: Record<string, unknown>): Map<string, unknown> {
  const members = new Map<string, unknown>();
  for (const [name, value] of Object.entries(object)) {
    const key = asciiLower(name);
    if (members.has(key)) throw scimBadRequest('invalidSyntax', `The attribute ${name} is given twice.`);
    members.set(key, value);
  }
  return members;
}

/**
 * A boolean attribute: JSON `true` or `false`, or the strings `"true"` and `"false"` in any case, which
 * Microsoft Entra ID sends (`"active": "False"`). Anything else is `invalidValue`.
 */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = asciiLower(value);
    if (word === 'true') return true;
    if (word === 'false') return false;
  }
  throw scimBadRequest('invalidValue', `${attribute} must be true or false.`);
}

/** A string attribute that may be unassigned (`null`). */
export function optionalText(value: unknown, attribute: string): string | null {
  if (value === null || typeof value === 'string') return value;
  throw scimBadRequest('invalidValue', `${attribute} must be a string or null.`);
}

/** A string attribute that must be assigned. */
export function requiredText(value: unknown, attribute: string): string {
  if (typeof value === 'string') return value;
  throw scimBadRequest('invalidValue', `${attribute} must be a string.`);
}

/** The members of a resource body (POST or PUT), whose `schemas` must name the resource's schema. */
export function resourceBody(body: unknown, schema: string): Map<string, unknown> {
  if (!isJsonObject(body)) throw scimBadRequest('invalidSyntax', 'The body must be a JSON object.');
  const members = membersOf(body);
  const schemas = members.get('schemas');
  if (
    !Array.isArray(schemas) ||
    !schemas.some((given) => typeof given === 'string' && asciiLower(given) === asciiLower(schema))
  ) {
    throw scimBadRequest('invalidSyntax', `schemas must include ${schema}.`);
  }
  return members;
}
