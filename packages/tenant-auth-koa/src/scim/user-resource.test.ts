import { describe, expect, it } from 'vitest';
import { aUser, BASE_URL, expectScimError } from './test-helpers.js';
import { userFromScim, userReplacedFromScim, userToScim } from './user-resource.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

describe('userToScim', () => {
  it("shows the contract's attributes: userName and its one work email, name, groups, meta", () => {
    expect(userToScim(aUser(), BASE_URL)).toEqual({
      schemas: [USER],
      id: 'u_ada',
      externalId: 'ext-ada',
      userName: 'ada@example.com',
      name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
      displayName: 'Ada L.',
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      active: true,
      groups: [{ value: 'g_eng', $ref: `${BASE_URL}/Groups/g_eng`, display: 'Engineering' }],
      meta: {
        resourceType: 'User',
        created: '2026-01-02T03:04:05.000Z',
        lastModified: '2026-02-03T04:05:06.000Z',
        location: `${BASE_URL}/Users/u_ada`,
      },
    });
  });

  it('leaves unassigned attributes out (a user no directory linked has no externalId)', () => {
    const bare = aUser({
      externalId: null,
      givenName: null,
      familyName: null,
      formattedName: null,
      displayName: null,
      groups: [],
      active: false,
    });
    const shown = userToScim(bare, `${BASE_URL}/`);
    expect(Object.keys(shown)).toEqual(['schemas', 'id', 'userName', 'emails', 'active', 'groups', 'meta']);
    expect(shown.meta.location).toBe(`${BASE_URL}/Users/u_ada`);
    expect(userToScim(aUser({ givenName: null, formattedName: null }), BASE_URL).name).toEqual({
      familyName: 'Lovelace',
    });
  });

  it('percent-encodes the id in URLs', () => {
    expect(userToScim(aUser({ id: 'a/b c' }), BASE_URL).meta.location).toBe(`${BASE_URL}/Users/a%2Fb%20c`);
  });
});

describe('userFromScim (POST /Users)', () => {
  it("reads Okta's create: password, locale and groups ignored, externalId kept", () => {
    expect(
      userFromScim({
        schemas: [USER],
        userName: 'test.user@okta.local',
        name: { givenName: 'Test', familyName: 'User' },
        emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
        displayName: 'Test User',
        locale: 'en-US',
        externalId: '00ujl29u0le5T6Aj10h7',
        groups: [],
        password: '1mz050nq',
        active: true,
      }),
    ).toEqual({
      email: 'test.user@okta.local',
      externalId: '00ujl29u0le5T6Aj10h7',
      givenName: 'Test',
      familyName: 'User',
      formattedName: null,
      displayName: 'Test User',
      active: true,
    });
  });

  it("reads Entra ID's create: nulls for unmapped attributes, a misspelt extension URN, userName over a different mail", () => {
    expect(
      userFromScim({
        schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0User'],
        externalId: 'jyoung',
        userName: 'jyoung@testuser.com',
        active: true,
        addresses: null,
        displayName: 'Joy Young',
        emails: [{ type: 'work', value: 'jyoung@Contoso.com', primary: true }],
        meta: { resourceType: 'User' },
        name: { familyName: 'Young', givenName: 'Joy' },
        phoneNumbers: null,
        preferredLanguage: null,
        title: null,
        department: null,
        manager: null,
      }),
    ).toEqual({
      email: 'jyoung@testuser.com',
      externalId: 'jyoung',
      givenName: 'Joy',
      familyName: 'Young',
      formattedName: null,
      displayName: 'Joy Young',
      active: true,
    });
  });

  it('active is true when left out, and takes string booleans', () => {
    expect(userFromScim({ schemas: [USER], userName: 'a@b.c' }).active).toBe(true);
    expect(userFromScim({ schemas: [USER], userName: 'a@b.c', active: 'False' }).active).toBe(false);
  });

  it('ignores a read-only id, meta and groups the directory sends (RFC 7644 3.3)', () => {
    const fields = userFromScim({
      schemas: [USER],
      userName: 'a@b.c',
      id: 'mine',
      meta: { x: 1 },
      groups: [{ value: 'g' }],
    });
    expect(fields.email).toBe('a@b.c');
  });

  it.each([
    [{ userName: 'a@b.c' }, 'invalidSyntax'],
    [{ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], userName: 'a@b.c' }, 'invalidSyntax'],
    [{ schemas: USER, userName: 'a@b.c' }, 'invalidSyntax'],
    [{ schemas: [USER] }, 'invalidValue'],
    [{ schemas: [USER], emails: [{ type: 'work', value: 'a@b.c' }] }, 'invalidValue'],
    [{ schemas: [USER], userName: 7 }, 'invalidValue'],
    [{ schemas: [USER], userName: 'a@b.c', name: 'Ada' }, 'invalidValue'],
    [{ schemas: [USER], userName: 'a@b.c', name: { givenName: 1 } }, 'invalidValue'],
    [{ schemas: [USER], userName: 'a@b.c', active: 'no' }, 'invalidValue'],
    [{ schemas: [USER], userName: 'a@b.c', externalId: 701984 }, 'invalidValue'],
    [{ schemas: [USER], userName: 'a@b.c', UserName: 'b@b.c' }, 'invalidSyntax'],
    ['a@b.c', 'invalidSyntax'],
  ])('%j is 400 %s', (body, scimType) => {
    expectScimError(() => userFromScim(body), scimType as never);
  });
});

describe('userReplacedFromScim (PUT /Users/:id)', () => {
  const user = aUser();

  it("reads Okta's update: id and meta that match, groups [] ignored (read-only), middleName ignored", () => {
    expect(
      userReplacedFromScim(
        user,
        {
          schemas: [USER],
          id: 'u_ada',
          userName: 'ada@example.com',
          name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
          emails: [{ primary: true, value: 'ada@example.com', type: 'work', display: 'ada@example.com' }],
          active: true,
          groups: [],
          meta: { resourceType: 'User' },
        },
        BASE_URL,
      ),
    ).toEqual({
      email: 'ada@example.com',
      externalId: 'ext-ada',
      givenName: 'Another',
      familyName: 'User',
      formattedName: null,
      displayName: 'Ada L.',
      active: true,
    });
  });

  it('what the body leaves out stays: a deactivated user is not reactivated, a link not dropped', () => {
    const deactivated = aUser({ active: false });
    expect(
      userReplacedFromScim(deactivated, { schemas: [USER], userName: 'ada@example.com' }, BASE_URL),
    ).toEqual({
      email: 'ada@example.com',
      externalId: 'ext-ada',
      givenName: 'Ada',
      familyName: 'Lovelace',
      formattedName: 'Ada Lovelace',
      displayName: 'Ada L.',
      active: false,
    });
    const cleared = {
      schemas: [USER],
      userName: 'ada@example.com',
      displayName: null,
      externalId: null,
      name: null,
    };
    expect(userReplacedFromScim(user, cleared, BASE_URL)).toMatchObject({
      displayName: null,
      externalId: null,
      givenName: null,
    });
  });

  it('one address: a changed userName changes it; a kept userName with a changed work email changes it to the email', () => {
    const renamed = {
      schemas: [USER],
      userName: 'ada@new.example',
      emails: [{ type: 'work', value: 'other@x.y' }],
    };
    expect(userReplacedFromScim(user, renamed, BASE_URL).email).toBe('ada@new.example');
    const remailed = {
      schemas: [USER],
      userName: 'ADA@example.com',
      emails: [{ type: 'work', value: 'ada@mail.example' }],
    };
    expect(userReplacedFromScim(user, remailed, BASE_URL).email).toBe('ada@mail.example');
  });

  it.each([
    [{ schemas: [USER], id: 'u_other', userName: 'ada@example.com' }],
    [{ schemas: [USER], userName: 'ada@example.com', meta: { resourceType: 'Group' } }],
    [{ schemas: [USER], userName: 'ada@example.com', meta: { location: `${BASE_URL}/Users/u_other` } }],
  ])("an id or meta other than the resource's is 400 mutability: %j", (body) => {
    expectScimError(() => userReplacedFromScim(user, body, BASE_URL), 'mutability');
  });
});
