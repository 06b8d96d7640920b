import { describe, expect, it } from 'vitest';
import { userFieldsOf } from './scim-records.js';
import { aUser, BASE_URL, expectScimError, patchOf } from './test-helpers.js';
import { applyUserPatch } from './user-patch.js';
import { userToScim } from './user-resource.js';

const user = aUser();
const unchanged = userFieldsOf(user);

function patched(...operations: unknown[]) {
  return applyUserPatch(user, patchOf(...operations), BASE_URL);
}

describe('applyUserPatch: what the big directories send', () => {
  it("takes Entra ID's capitalised op (Replace, Add, Remove) and any other case", () => {
    expect(patched({ op: 'Replace', path: 'displayName', value: 'A' }).displayName).toBe('A');
    expect(patched({ op: 'Add', path: 'displayName', value: 'B' }).displayName).toBe('B');
    expect(patched({ op: 'Remove', path: 'displayName' }).displayName).toBeNull();
    expect(patched({ op: 'REPLACE', path: 'displayName', value: 'C' }).displayName).toBe('C');
  });

  it.each([
    ['False', false],
    ['false', false],
    ['FALSE', false],
    ['True', true],
    ['tRUE', true],
    [false, false],
    [true, true],
  ])("takes Entra ID's string booleans: active %j is %j", (value, active) => {
    const current = aUser({ active: !active });
    expect(applyUserPatch(current, patchOf({ op: 'Replace', path: 'active', value }), BASE_URL).active).toBe(
      active,
    );
  });

  it.each([['yes'], ['0'], [0], [null], ['False ']])('refuses active %j as invalidValue', (value) => {
    expectScimError(() => patched({ op: 'replace', path: 'active', value }), 'invalidValue');
  });

  it("takes Okta's replace without a path, its value an object of attributes", () => {
    expect(patched({ op: 'replace', value: { active: false } })).toEqual({ ...unchanged, active: false });
  });

  it('emails[type eq "work"].value changes the address (userName and the work email are one)', () => {
    const fields = patched({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada@new.example' });
    expect(fields).toEqual({ ...unchanged, email: 'ada@new.example' });
    const shown = userToScim({ ...user, ...fields }, BASE_URL);
    expect([shown.userName, shown.emails]).toEqual([
      'ada@new.example',
      [{ value: 'ada@new.example', type: 'work', primary: true }],
    ]);
  });

  it('userName changes the same address', () => {
    expect(patched({ op: 'Replace', path: 'userName', value: 'ada@new.example' }).email).toBe(
      'ada@new.example',
    );
  });

  it('name.givenName, name.familyName and name.formatted, one at a time', () => {
    expect(patched({ op: 'Replace', path: 'name.givenName', value: 'Augusta' })).toEqual({
      ...unchanged,
      givenName: 'Augusta',
    });
    expect(patched({ op: 'Replace', path: 'name.familyName', value: 'King' }).familyName).toBe('King');
    expect(patched({ op: 'add', path: 'name.formatted', value: 'A. King' }).formattedName).toBe('A. King');
    expect(patched({ op: 'remove', path: 'name.givenName' })).toEqual({ ...unchanged, givenName: null });
  });

  it('name as an object merges: the parts it leaves out stay (RFC 7644 3.5.2.3)', () => {
    expect(patched({ op: 'replace', path: 'name', value: { familyName: 'King', middleName: 'x' } })).toEqual({
      ...unchanged,
      familyName: 'King',
    });
    expect(patched({ op: 'remove', path: 'name' })).toEqual({
      ...unchanged,
      givenName: null,
      familyName: null,
      formattedName: null,
    });
  });

  it('externalId is replaced and removed', () => {
    expect(patched({ op: 'Replace', path: 'externalId', value: 'Eqpj' }).externalId).toBe('Eqpj');
    expect(patched({ op: 'remove', path: 'externalId' }).externalId).toBeNull();
    expect(patched({ op: 'replace', path: 'externalId', value: null }).externalId).toBeNull();
  });

  it("Entra ID's pre-2020 form: one Replace per attribute, the enterprise extension among them", () => {
    const fields = patched(
      { op: 'Replace', path: 'displayName', value: 'Pvlo' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'TestBcwqnm@test.microsoft.com' },
      { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
      { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
      { op: 'Replace', path: 'externalId', value: 'Eqpj' },
      {
        op: 'Replace',
        path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber',
        value: 'Eqpj',
      },
    );
    expect(fields).toEqual({
      ...unchanged,
      displayName: 'Pvlo',
      email: 'TestBcwqnm@test.microsoft.com',
      givenName: 'Gtfd',
      familyName: 'Pkqf',
      externalId: 'Eqpj',
    });
  });

  it("Entra ID's compliant form: a path-less replace whose keys are paths (name.givenName, extension URNs)", () => {
    const fields = patched(
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'TestMhvaes@test.microsoft.com' },
      {
        op: 'replace',
        value: {
          displayName: 'Bjfe',
          'name.givenName': 'Kkom',
          'name.familyName': 'Unua',
          'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber': 'Aklq',
        },
      },
    );
    expect(fields).toEqual({
      ...unchanged,
      email: 'TestMhvaes@test.microsoft.com',
      displayName: 'Bjfe',
      givenName: 'Kkom',
      familyName: 'Unua',
    });
  });

  it('a null path is no path', () => {
    expect(patched({ op: 'replace', path: null, value: { displayName: 'N' } }).displayName).toBe('N');
  });

  it("the resource's own schema URN as a key of a path-less value holds its attributes", () => {
    const value = { 'urn:ietf:params:scim:schemas:core:2.0:User': { displayName: 'X', active: 'False' } };
    expect(patched({ op: 'replace', value })).toEqual({ ...unchanged, displayName: 'X', active: false });
  });

  it('attribute names in any case, in paths and in value keys (RFC 7643 2.1)', () => {
    expect(patched({ op: 'replace', path: 'ACTIVE', value: false }).active).toBe(false);
    expect(patched({ op: 'replace', path: 'Name.GivenName', value: 'G' }).givenName).toBe('G');
    expect(patched({ op: 'replace', path: 'EMAILS[TYPE eq "Work"].Value', value: 'x@y.z' }).email).toBe(
      'x@y.z',
    );
    expect(patched({ op: 'replace', value: { DisplayName: 'D', EXTERNALID: 'E' } })).toMatchObject({
      displayName: 'D',
      externalId: 'E',
    });
    const lowerCase = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:patchop'],
      operations: [{ op: 'replace', path: 'displayName', value: 'lower' }],
    };
    expect(applyUserPatch(user, lowerCase, BASE_URL).displayName).toBe('lower');
  });

  it('ignores what it does not store: nickName (Entra ID), password (Okta), phone numbers, addresses, extensions', () => {
    expect(
      patched(
        { op: 'Add', path: 'nickName', value: 'Babs' },
        { op: 'replace', value: { password: 't1meMa$heen', locale: 'en-US', title: 'Tour Guide' } },
        { op: 'replace', path: 'phoneNumbers[type eq "work"].value', value: '555-555-5555' },
        { op: 'add', path: 'addresses', value: [{ type: 'work', postalCode: '91608' }] },
        { op: 'remove', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager' },
        { op: 'replace', path: 'name.middleName', value: 'Jane' },
      ),
    ).toEqual(unchanged);
  });

  it('an email of another type is not stored; the work email keeps its type and primary', () => {
    expect(
      patched(
        { op: 'replace', path: 'emails[type eq "other"].Value', value: 'proxy@example.com' },
        { op: 'replace', path: 'emails[type eq "work"].primary', value: false },
        { op: 'add', path: 'emails', value: [{ type: 'home', value: 'home@example.com' }] },
      ),
    ).toEqual(unchanged);
  });

  it('emails as a whole: the work one, else the primary one, else the only one', () => {
    const work = [
      { type: 'home', value: 'home@example.com', primary: true },
      { type: 'work', value: 'work@example.com' },
    ];
    expect(patched({ op: 'replace', path: 'emails', value: work }).email).toBe('work@example.com');
    const primary = [
      { type: 'home', value: 'h@example.com' },
      { value: 'p@example.com', primary: 'True' },
    ];
    expect(patched({ op: 'replace', path: 'emails', value: primary }).email).toBe('p@example.com');
    expect(patched({ op: 'add', path: 'emails', value: { value: 'only@example.com' } }).email).toBe(
      'only@example.com',
    );
    expect(patched({ op: 'add', path: 'emails[primary eq true].value', value: 'p@x.y' }).email).toBe('p@x.y');
    expect(patched({ op: 'replace', path: 'emails[type eq "work"]', value: { value: 'w@x.y' } }).email).toBe(
      'w@x.y',
    );
  });

  it('operations apply in order: the last one wins', () => {
    expect(
      patched(
        { op: 'replace', path: 'userName', value: 'first@example.com' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'second@example.com' },
      ).email,
    ).toBe('second@example.com');
  });
});

describe('applyUserPatch: read-only attributes', () => {
  const shown = userToScim(user, BASE_URL);

  it('id, schemas, meta and groups in a value are ignored when they match the resource', () => {
    const value = {
      id: shown.id,
      schemas: [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      ],
      meta: { resourceType: 'User', created: '2026-01-02T04:04:05+01:00', location: shown.meta.location },
      groups: [{ value: 'g_eng', display: 'whatever' }],
      displayName: 'Echoed',
    };
    expect(patched({ op: 'replace', value })).toEqual({ ...unchanged, displayName: 'Echoed' });
    expect(patched({ op: 'replace', path: 'meta.resourceType', value: 'User' })).toEqual(unchanged);
  });

  it.each([
    [{ op: 'replace', value: { id: 'u_other' } }, 'another id'],
    [
      { op: 'replace', value: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'] } },
      'another schema',
    ],
    [{ op: 'replace', value: { meta: { resourceType: 'Group' } } }, 'another resource type'],
    [{ op: 'replace', value: { meta: { created: '2020-01-01T00:00:00Z' } } }, 'another creation time'],
    [{ op: 'replace', value: { meta: { version: 'W/"1"' } } }, 'a meta member it does not have'],
    [{ op: 'add', path: 'groups', value: [{ value: 'g_admins' }] }, 'a group added'],
    [{ op: 'replace', value: { groups: [] } }, 'groups emptied'],
    [{ op: 'remove', path: 'groups[value eq "g_eng"]' }, 'a group removed'],
    [{ op: 'remove', path: 'id' }, 'the id removed'],
    [{ op: 'remove', path: 'meta' }, 'meta removed'],
  ])('anything else is 400 mutability: %j (%s)', (operation, _case) => {
    expectScimError(() => patched(operation), 'mutability');
  });
});

describe('applyUserPatch: refusals, and nothing changes', () => {
  it('applies all its operations or none: a valid one before an invalid one changes nothing', () => {
    const current = aUser(); // deep-frozen: an applier that wrote to it would throw a TypeError
    expectScimError(
      () =>
        applyUserPatch(
          current,
          patchOf(
            { op: 'replace', path: 'active', value: false },
            { op: 'replace', path: 'displayName', value: 'Changed' },
            { op: 'replace', path: 'active', value: 'maybe' },
          ),
          BASE_URL,
        ),
      'invalidValue',
    );
    expect(userFieldsOf(current)).toEqual(unchanged);
  });

  it.each([
    [{ op: 'remove', path: 'userName' }, 'mutability'],
    [{ op: 'remove', path: 'emails' }, 'mutability'],
    [{ op: 'remove', path: 'emails[type eq "work"]' }, 'mutability'],
    [{ op: 'remove', path: 'emails[type eq "work"].value' }, 'mutability'],
    [{ op: 'remove', path: 'active' }, 'mutability'],
    [{ op: 'remove' }, 'noTarget'],
    [{ op: 'Remove', value: { displayName: 'x' } }, 'noTarget'],
    [{ op: 'add', path: 'displayName' }, 'invalidValue'],
    [{ op: 'replace', value: 'not an object' }, 'invalidValue'],
    [{ op: 'replace', path: 'userName', value: 42 }, 'invalidValue'],
    [{ op: 'replace', path: 'userName', value: null }, 'invalidValue'],
    [{ op: 'replace', path: 'name', value: 'Ada' }, 'invalidValue'],
    [{ op: 'replace', path: 'displayName', value: ['x'] }, 'invalidValue'],
    [{ op: 'replace', path: 'emails', value: ['a@b.c'] }, 'invalidValue'],
    [{ op: 'replace', path: 'emails[type eq "work"]', value: 'a@b.c' }, 'invalidValue'],
    [{ op: 'copy', path: 'displayName', value: 'x' }, 'invalidSyntax'],
    [{ path: 'displayName', value: 'x' }, 'invalidSyntax'],
    ['replace', 'invalidSyntax'],
    [{ op: 'replace', path: 7, value: 'x' }, 'invalidPath'],
    [{ op: 'replace', path: '', value: 'x' }, 'invalidPath'],
    [{ op: 'replace', path: 'userName.first', value: 'x' }, 'invalidPath'],
    [{ op: 'replace', path: 'displayName[value eq "x"]', value: 'x' }, 'invalidPath'],
    [{ op: 'replace', path: 'name[givenName eq "x"]', value: 'x' }, 'invalidPath'],
    [{ op: 'replace', path: 'emails[value eq "ada@example.com"]', value: { value: 'x@y.z' } }, 'invalidPath'],
    [{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }, 'invalidPath'],
    [{ op: 'replace', value: { 'name..givenName': 'x' } }, 'invalidPath'],
    [{ op: 'replace', value: { displayName: 'a', DisplayName: 'b' } }, 'invalidSyntax'],
  ])('%j is 400 %s', (operation, scimType) => {
    expectScimError(() => patched(operation), scimType as never);
  });

  it.each([
    [{ Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] }, 'no schemas'],
    [{ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], Operations: [] }, 'another schema'],
    [{ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [] }, 'no operations'],
    [
      { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: {} },
      'operations not an array',
    ],
    [{ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'] }, 'no Operations'],
    [[], 'an array'],
    [null, 'null'],
  ])('the body %j (%s) is 400 invalidSyntax', (body, _case) => {
    expectScimError(() => applyUserPatch(user, body, BASE_URL), 'invalidSyntax');
  });
});
