import { parseAttributePath, type ScimAttributePath } from './attribute-path.js';
import { scimBadRequest } from './scim-error.js';
import { SCIM_SCHEMAS } from './scim-protocol.js';
import { asciiLower, isJsonObject, membersOf, sameName } from './scim-values.js';

/**
 * A `PATCH` body (RFC 7644 3.5.2, `PatchOp`) read into operations, each aimed at one attribute path:
 * the shared front of the user and group appliers.
 */

/** `add`, `replace` or `remove`, whatever case the directory wrote (Entra ID writes `Replace`). */
export type ScimPatchOperationName = 'add' | 'replace' | 'remove';

/** One operation aimed at one attribute. */
export interface ScimTargetedOperation {
  op: ScimPatchOperationName;
  path: ScimAttributePath;
  /** `undefined` when the operation has no `value` (only a `remove` may lack one). */
  value: unknown;
}

interface ScimPatchOperation {
  op: ScimPatchOperationName;
  path: ScimAttributePath | null;
  value: unknown;
}

const OPERATION_NAMES: readonly ScimPatchOperationName[] = ['add', 'replace', 'remove'];

function readOperation(operation: unknown): ScimPatchOperation {
  if (!isJsonObject(operation)) throw scimBadRequest('invalidSyntax', 'Each operation is an object.');
  const members = membersOf(operation);
  const name = members.get('op');
  const op = typeof name === 'string' ? OPERATION_NAMES.find((known) => sameName(known, name)) : undefined;
  if (op === undefined) throw scimBadRequest('invalidSyntax', 'op is "add", "replace" or "remove".');
  const path = members.get('path') ?? null; // a null path is no path
  if (path !== null && typeof path !== 'string') throw scimBadRequest('invalidPath', 'path is a string.');
  const value = members.get('value');
  if (op !== 'remove' && value === undefined) {
    throw scimBadRequest('invalidValue', `An ${op} operation needs a value.`);
  }
  return { op, path: path === null ? null : parseAttributePath(path), value };
}

/**
 * The operations of a `PatchOp` body: `schemas` must name PatchOp and `Operations` must be a non-empty
 * array (`400 invalidSyntax` otherwise); each `op` is `add`, `replace` or `remove` in any case.
 */
export function readPatchRequest(body: unknown): ScimPatchOperation[] {
  if (!isJsonObject(body)) throw scimBadRequest('invalidSyntax', 'The body must be a JSON object.');
  const members = membersOf(body);
  const schemas = members.get('schemas');
  if (
    !Array.isArray(schemas) ||
    !schemas.some((s) => typeof s === 'string' && sameName(s, SCIM_SCHEMAS.patchOp))
  ) {
    throw scimBadRequest('invalidSyntax', `schemas must include ${SCIM_SCHEMAS.patchOp}.`);
  }
  const operations = members.get('operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw scimBadRequest('invalidSyntax', 'Operations must be a non-empty array.');
  }
  return operations.map(readOperation);
}

function expandValue(
  op: 'add' | 'replace',
  value: Record<string, unknown>,
  resourceSchema: string,
): ScimTargetedOperation[] {
  membersOf(value); // refuses a name given twice in two spellings
  return Object.entries(value).flatMap(([name, member]) =>
    // `{"urn:…:core:2.0:User": {…}}`: the resource's own attributes, one level down.
    sameName(name, resourceSchema) && isJsonObject(member)
      ? expandValue(op, member, resourceSchema)
      : [{ op, path: parseAttributePath(name), value: member }],
  );
}

/**
 * The attributes an operation aims at: its `path`, or, for an `add` or `replace` without one (Okta's
 * `{"op": "replace", "value": {"active": false}}`), each member of its value object, whose name is
 * itself a path (Entra ID sends `"name.givenName"` and extension URNs there). A `remove` without a path
 * is `400 noTarget` (RFC 7644 3.5.2.2).
 */
export function targetsOf(operation: ScimPatchOperation, resourceSchema: string): ScimTargetedOperation[] {
  const { op, path, value } = operation;
  if (path !== null) return [{ op, path, value }];
  if (op === 'remove') throw scimBadRequest('noTarget', 'A remove operation needs a path.');
  if (!isJsonObject(value)) {
    throw scimBadRequest(
      'invalidValue',
      `An ${op} without a path needs an object of attributes as its value.`,
    );
  }
  return expandValue(op, value, resourceSchema);
}

/** Whether a path is in the resource's own schema (no URN, or the resource's): others are extensions. */
export function inResourceSchema(path: ScimAttributePath, resourceSchema: string): boolean {
  return path.schema === null || asciiLower(path.schema) === asciiLower(resourceSchema);
}
