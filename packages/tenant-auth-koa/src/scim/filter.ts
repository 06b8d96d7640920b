import { parseComparison, type ScimAttributePath } from './attribute-path.js';
import { attributeDefinition, GROUP_SCHEMA, USER_SCHEMA } from './schemas.js';
import { scimBadRequest } from './scim-error.js';
import { SCIM_SCHEMAS } from './scim-protocol.js';
import { asciiLower, sameName } from './scim-values.js';

/**
 * The filters of `GET /Users` and `GET /Groups`, exactly those of docs/http-api.md ("SCIM 2.0
 * provisioning per tenant"); any other filter is `400 invalidFilter`.
 */

/**
 * A user filter, in core's words: `userName eq` and `emails[type eq "work"].value eq` are both `email`
 * (the user's one address); `caseExact: false` means addresses compare as core normalises them.
 */
export interface ScimUserFilter {
  attribute: 'email' | 'externalId' | 'id';
  value: string;
  caseExact: boolean;
}

/** A group filter: `displayName eq "…"` (RFC 7643: not case-exact). */
export interface ScimGroupFilter {
  attribute: 'displayName';
  value: string;
  caseExact: boolean;
}

const USER_FILTERS = 'userName eq, externalId eq, emails[type eq "work"].value eq and id eq';

function inSchema(path: ScimAttributePath, schema: string): boolean {
  return path.schema === null || sameName(path.schema, schema);
}

function isPlain(path: ScimAttributePath, name: string): boolean {
  return path.filter === null && path.subAttribute === null && sameName(path.attribute, name);
}

function isWorkEmailValue(path: ScimAttributePath): boolean {
  const { filter } = path;
  return (
    sameName(path.attribute, 'emails') &&
    filter !== null &&
    sameName(filter.attribute, 'type') &&
    typeof filter.value === 'string' &&
    asciiLower(filter.value) === 'work' &&
    path.subAttribute !== null &&
    sameName(path.subAttribute, 'value')
  );
}

function stringValue(value: unknown, supported: string): string {
  if (typeof value !== 'string')
    throw scimBadRequest('invalidFilter', `Supported filters: ${supported} "…".`);
  return value;
}

/**
 * The `filter` of `GET /Users`: `userName eq "…"` (not case-exact), `externalId eq "…"`,
 * `emails[type eq "work"].value eq "…"` or `id eq "…"`. Any value is accepted (`userName eq "not an
 * address"` finds no one, it is not an error).
 *
 * @example
 * parseUserFilter('userName eq "Ada@Example.com"') // { attribute: 'email', value: 'Ada@Example.com', caseExact: false }
 */
export function parseUserFilter(text: string): ScimUserFilter {
  const { path, value } = parseComparison(text);
  if (inSchema(path, SCIM_SCHEMAS.user)) {
    if (isPlain(path, 'userName') || isWorkEmailValue(path)) {
      const { caseExact } = attributeDefinition(USER_SCHEMA, 'userName');
      return { attribute: 'email', value: stringValue(value, USER_FILTERS), caseExact };
    }
    for (const attribute of ['externalId', 'id'] as const) {
      if (isPlain(path, attribute)) {
        const { caseExact } = attributeDefinition(USER_SCHEMA, attribute);
        return { attribute, value: stringValue(value, USER_FILTERS), caseExact };
      }
    }
  }
  throw scimBadRequest('invalidFilter', `Supported filters: ${USER_FILTERS} "…".`);
}

/**
 * The `filter` of `GET /Groups`: `displayName eq "…"`.
 *
 * @example
 * parseGroupFilter('displayName eq "Engineering"') // { attribute: 'displayName', value: 'Engineering', caseExact: false }
 */
export function parseGroupFilter(text: string): ScimGroupFilter {
  const { path, value } = parseComparison(text);
  if (inSchema(path, SCIM_SCHEMAS.group) && isPlain(path, 'displayName')) {
    const { caseExact } = attributeDefinition(GROUP_SCHEMA, 'displayName');
    return { attribute: 'displayName', value: stringValue(value, 'displayName eq'), caseExact };
  }
  throw scimBadRequest('invalidFilter', 'Supported filter: displayName eq "…".');
}
