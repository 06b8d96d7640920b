import { describe, expect, it } from 'vitest';
import { applyGroupPatch } from './group-patch.js';
import { groupToScim } from './group-resource.js';
import { groupFieldsOf } from './scim-records.js';
import { aGroup, BASE_URL, expectScimError, patchOf } from './test-helpers.js';

const group = aGroup(); // Engineering: u_ada, u_bob
const unchanged = groupFieldsOf(group);

function patched(...operations: unknown[]) {
  return applyGroupPatch(group, patchOf(...operations), BASE_URL);
}

describe('applyGroupPatch: members', () => {
  it('add with the path "members" adds (Entra ID: "Add", a null $ref); present ones count once', () => {
    expect(
      patched({ op: 'Add', path: 'members', value: [{ $ref: null, value: 'u_cy' }, { value: 'u_ada' }] }),
    ).toEqual({ ...unchanged, memberIds: ['u_ada', 'u_bob', 'u_cy'] });
  });

  it('add without a path, members in the value object', () => {
    expect(
      patched({ op: 'add', value: { members: [{ value: 'u_cy', display: 'cy@example.com' }] } }).memberIds,
    ).toEqual(['u_ada', 'u_bob', 'u_cy']);
  });

  it('replace with the path "members" sets them all (Okta\'s full push)', () => {
    expect(
      patched({ op: 'replace', path: 'members', value: [{ value: 'u_cy' }, { value: 'u_bob' }] }).memberIds,
    ).toEqual(['u_cy', 'u_bob']);
    expect(patched({ op: 'replace', path: 'members', value: [] }).memberIds).toEqual([]);
  });

  it('remove with path members[value eq "<id>"] removes that member (Okta, Entra ID with the 2020 flag)', () => {
    expect(patched({ op: 'remove', path: 'members[value eq "u_ada"]' }).memberIds).toEqual(['u_bob']);
  });

  it('compares member ids as stored (lower-case), whatever case the directory sends them in', () => {
    expect(patched({ op: 'remove', path: 'members[value eq "U_ADA"]' }).memberIds).toEqual(['u_bob']);
    expect(patched({ op: 'remove', path: 'members', value: [{ value: 'U_BOB' }] }).memberIds).toEqual([
      'u_ada',
    ]);
    expect(patched({ op: 'add', path: 'members', value: [{ value: 'U_ADA' }] }).memberIds).toEqual([
      'u_ada',
      'u_bob',
    ]);
  });

  it('remove of a member that is not there removes no one (Okta removes before it adds)', () => {
    expect(
      patched({ op: 'remove', path: 'members[value eq "89bb1940-b905-4575-9e7f-6f887cfb368e"]' }),
    ).toEqual(unchanged);
  });

  it('remove with the path "members" and a value removes those members (Entra ID\'s pre-2020 form)', () => {
    expect(
      patched({ op: 'Remove', path: 'members', value: [{ $ref: null, value: 'u_ada' }] }).memberIds,
    ).toEqual(['u_bob']);
  });

  it('remove of members without a filter and without a value removes no one (azure-docs #30826)', () => {
    expect(patched({ op: 'remove', path: 'members' })).toEqual(unchanged);
    expect(patched({ op: 'Remove', path: 'members', value: null })).toEqual(unchanged);
    expect(patched({ op: 'remove', path: 'members', value: [] })).toEqual(unchanged);
  });

  it('replace of members[value eq "<id>"] puts another user in its place', () => {
    expect(
      patched({ op: 'replace', path: 'members[value eq "u_ada"]', value: { value: 'u_cy' } }).memberIds,
    ).toEqual(['u_cy', 'u_bob']);
  });

  it("Okta's membership patch: remove one, add another, in one request", () => {
    expect(
      patched(
        { op: 'remove', path: 'members[value eq "u_bob"]' },
        { op: 'add', path: 'members', value: [{ value: 'u_cy', display: 'cy@example.com' }] },
      ).memberIds,
    ).toEqual(['u_ada', 'u_cy']);
  });
});

describe('applyGroupPatch: displayName and read-only attributes', () => {
  it('displayName with a path (Entra ID) or in a value with the matching id (Okta)', () => {
    expect(patched({ op: 'Replace', path: 'displayName', value: 'Platform' }).displayName).toBe('Platform');
    expect(patched({ op: 'replace', value: { id: 'g_eng', displayName: 'Test SCIMv2' } })).toEqual({
      ...unchanged,
      displayName: 'Test SCIMv2',
    });
  });

  it('id, schemas and meta in a value are ignored when they match; externalId is not stored', () => {
    const shown = groupToScim(group, BASE_URL);
    const value = {
      id: 'g_eng',
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      meta: { resourceType: 'Group', location: shown.meta.location },
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
    };
    expect(patched({ op: 'replace', value })).toEqual(unchanged);
  });

  it.each([
    [{ op: 'replace', value: { id: 'g_other', displayName: 'x' } }, 'mutability'],
    [{ op: 'replace', value: { meta: { resourceType: 'User' } } }, 'mutability'],
    [{ op: 'replace', value: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'] } }, 'mutability'],
    [{ op: 'remove', path: 'displayName' }, 'mutability'],
    [{ op: 'replace', path: 'displayName', value: null }, 'invalidValue'],
    [{ op: 'replace', path: 'members[value eq "u_cy"]', value: { value: 'u_dee' } }, 'noTarget'],
    [
      { op: 'replace', path: 'members[value eq "u_ada"]', value: [{ value: 'a' }, { value: 'b' }] },
      'invalidValue',
    ],
    [{ op: 'add', path: 'members[value eq "u_cy"]', value: { value: 'u_cy' } }, 'invalidPath'],
    [{ op: 'remove', path: 'members[display eq "ada@example.com"]' }, 'invalidPath'],
    [{ op: 'remove', path: 'members[value eq "u_ada"].display' }, 'invalidPath'],
    [{ op: 'remove', path: 'members.value' }, 'invalidPath'],
    [{ op: 'add', path: 'members', value: ['u_cy'] }, 'invalidValue'],
    [{ op: 'add', path: 'members', value: [{ display: 'no id' }] }, 'invalidValue'],
    [{ op: 'add', path: 'members', value: [{ value: '' }] }, 'invalidValue'],
    [{ op: 'add', path: 'members', value: [{ value: 'g_nested', type: 'Group' }] }, 'invalidValue'],
    [{ op: 'remove' }, 'noTarget'],
  ])('%j is 400 %s', (operation, scimType) => {
    expectScimError(() => patched(operation), scimType as never);
  });

  it('applies all its operations or none', () => {
    const current = aGroup();
    expectScimError(
      () =>
        applyGroupPatch(
          current,
          patchOf(
            { op: 'replace', path: 'displayName', value: 'Renamed' },
            { op: 'remove', path: 'members' },
            { op: 'add', path: 'members', value: [{ value: 42 }] },
          ),
          BASE_URL,
        ),
      'invalidValue',
    );
    expect(groupFieldsOf(current)).toEqual(unchanged);
  });
});
