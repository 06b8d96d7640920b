import { expect } from 'vitest';
import { ScimError, type ScimType } from './scim-error.js';
import type { ScimGroup, ScimUser } from './scim-records.js';

/** Runs `run` and checks that it throws a `ScimError` with this status and `scimType`. */
export function expectScimError(run: () => unknown, scimType: ScimType, status = 400): ScimError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ScimError);
  const error = thrown as ScimError;
  expect({ status: error.status, scimType: error.scimType }).toEqual({ status, scimType });
  return error;
}

/** The base URL the tests' resources live under. */
export const BASE_URL = 'https://auth.example.com/scim/v2';

/** A user with every attribute assigned, in one group; `overrides` replace fields. */
export function aUser(overrides: Partial<ScimUser> = {}): ScimUser {
  return deepFreeze({
    id: 'u_ada',
    email: 'ada@example.com',
    externalId: 'ext-ada',
    givenName: 'Ada',
    familyName: 'Lovelace',
    formattedName: 'Ada Lovelace',
    displayName: 'Ada L.',
    active: true,
    groups: [{ id: 'g_eng', displayName: 'Engineering' }],
    createdAt: new Date('2026-01-02T03:04:05.000Z'),
    updatedAt: new Date('2026-02-03T04:05:06.000Z'),
    ...overrides,
  });
}

/** A group with two members; `overrides` replace fields. */
export function aGroup(overrides: Partial<ScimGroup> = {}): ScimGroup {
  return deepFreeze({
    id: 'g_eng',
    displayName: 'Engineering',
    members: [
      { id: 'u_ada', email: 'ada@example.com' },
      { id: 'u_bob', email: 'bob@example.com' },
    ],
    createdAt: new Date('2026-01-02T03:04:05.000Z'),
    updatedAt: new Date('2026-02-03T04:05:06.000Z'),
    ...overrides,
  });
}

/** A PatchOp body of these operations. */
export function patchOf(...operations: unknown[]): unknown {
  return { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations };
}

/** Freezes a record and everything in it (dates aside), so an applier that writes to its input throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
