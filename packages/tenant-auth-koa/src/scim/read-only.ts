import type { ScimMeta } from './resource-meta.js';
import { type ScimError, scimBadRequest } from './scim-error.js';
import { isJsonObject, membersOf, sameName } from './scim-values.js';

/**
 * The read-only attributes a directory echoes back in a `PUT` body or a `PATCH` value (`id`, `schemas`,
 * `meta`, a user's `groups`): ignored when they match the resource, `400 mutability` when they do not
 * (docs/http-api.md, "SCIM 2.0 provisioning per tenant").
 */

/** The read-only part of a resource as this server shows it. */
export interface ShownResource {
  id: string;
  schemas: readonly string[];
  meta: ScimMeta;
  groups?: readonly { value: string }[];
}

/** The names of the read-only attributes, lower-cased. */
export type ReadOnlyName = 'id' | 'schemas' | 'meta' | 'groups';

const READ_ONLY_NAMES: ReadonlySet<string> = new Set<ReadOnlyName>(['id', 'schemas', 'meta', 'groups']);

/** The read-only attribute a lower-cased name is on this resource (`groups` only on a user), or null. */
export function readOnlyName(shown: ShownResource, name: string): ReadOnlyName | null {
  if (!READ_ONLY_NAMES.has(name) || (name === 'groups' && shown.groups === undefined)) return null;
  return name as ReadOnlyName;
}

function sameMetaMember(name: string, shown: ScimMeta, value: unknown): boolean {
  const key = (['resourceType', 'created', 'lastModified', 'location'] as const).find((k) =>
    sameName(k, name),
  );
  if (key === undefined || typeof value !== 'string') return false;
  if (key === 'created' || key === 'lastModified') {
    const instant = Date.parse(value);
    return !Number.isNaN(instant) && instant === Date.parse(shown[key]);
  }
  return value === shown[key];
}

function matches(
  shown: ShownResource,
  name: ReadOnlyName,
  subAttribute: string | null,
  value: unknown,
): boolean {
  switch (name) {
    case 'id':
      return subAttribute === null && value === shown.id;
    case 'schemas':
      return (
        subAttribute === null &&
        Array.isArray(value) &&
        value.every((schema) => typeof schema === 'string') &&
        value.some((schema) => sameName(schema, shown.schemas[0] as string))
      );
    case 'meta':
      if (subAttribute !== null) return sameMetaMember(subAttribute, shown.meta, value);
      return (
        isJsonObject(value) &&
        [...membersOf(value)].every(([member, given]) => sameMetaMember(member, shown.meta, given))
      );
    case 'groups': {
      if (shown.groups === undefined || subAttribute !== null || !Array.isArray(value)) return false;
      const given = value.map((group) => (isJsonObject(group) ? membersOf(group).get('value') : undefined));
      const current = new Set(shown.groups.map((group) => group.value));
      return (
        given.every((id) => typeof id === 'string' && current.has(id)) && new Set(given).size === current.size
      );
    }
  }
}

/**
 * Checks a read-only attribute a client sent: nothing happens when it matches what the server shows
 * (`schemas` matches when it names the resource's schema; `meta` when each member it gives is the
 * resource's), `400 mutability` otherwise.
 */
export function checkReadOnly(
  shown: ShownResource,
  name: ReadOnlyName,
  subAttribute: string | null,
  value: unknown,
): void {
  if (!matches(shown, name, subAttribute, value)) throw readOnlyError(name);
}

/** `400 mutability`: a read-only attribute removed, filtered, or given a value other than the resource's. */
export function readOnlyError(name: ReadOnlyName): ScimError {
  return scimBadRequest('mutability', `${name} is read-only; only the resource's own value may be sent.`);
}
