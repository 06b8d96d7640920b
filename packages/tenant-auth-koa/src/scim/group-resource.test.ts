import { describe, expect, it } from 'vitest';
import { groupFromScim, groupReplacedFromScim, groupToScim } from './group-resource.js';
import { aGroup, BASE_URL, expectScimError } from './test-helpers.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

describe('groupToScim', () => {
  it('shows displayName, members (display is the address) and meta', () => {
    expect(groupToScim(aGroup(), BASE_URL)).toEqual({
      schemas: [GROUP],
      id: 'g_eng',
      displayName: 'Engineering',
      members: [
        { value: 'u_ada', $ref: `${BASE_URL}/Users/u_ada`, display: 'ada@example.com' },
        { value: 'u_bob', $ref: `${BASE_URL}/Users/u_bob`, display: 'bob@example.com' },
      ],
      meta: {
        resourceType: 'Group',
        created: '2026-01-02T03:04:05.000Z',
        lastModified: '2026-02-03T04:05:06.000Z',
        location: `${BASE_URL}/Groups/g_eng`,
      },
    });
  });

  it('leaves members out for excludedAttributes=members (Entra ID asks so)', () => {
    expect(groupToScim(aGroup(), BASE_URL, { members: false })).not.toHaveProperty('members');
  });
});

describe('groupFromScim (POST /Groups)', () => {
  it("reads Okta's create and Entra ID's (its own schema URN, an externalId and meta, not stored)", () => {
    expect(groupFromScim({ schemas: [GROUP], displayName: 'Test SCIMv2', members: [] })).toEqual({
      displayName: 'Test SCIMv2',
      memberIds: [],
    });
    expect(
      groupFromScim({
        schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
        externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
        displayName: 'displayName',
        meta: { resourceType: 'Group' },
      }),
    ).toEqual({ displayName: 'displayName', memberIds: [] });
  });

  it('members are ids, each once', () => {
    const members = [{ value: 'u_1', display: 'a' }, { value: 'u_2', type: 'User' }, { value: 'u_1' }];
    expect(groupFromScim({ schemas: [GROUP], displayName: 'G', members }).memberIds).toEqual(['u_1', 'u_2']);
  });

  it.each([
    [{ displayName: 'G' }, 'invalidSyntax'],
    [{ schemas: [GROUP] }, 'invalidValue'],
    [{ schemas: [GROUP], displayName: null }, 'invalidValue'],
    [{ schemas: [GROUP], displayName: 'G', members: [{ value: 'g_1', type: 'Group' }] }, 'invalidValue'],
    [{ schemas: [GROUP], displayName: 'G', members: 'u_1' }, 'invalidValue'],
  ])('%j is 400 %s', (body, scimType) => {
    expectScimError(() => groupFromScim(body), scimType as never);
  });
});

describe('groupReplacedFromScim (PUT /Groups/:id)', () => {
  it("replaces displayName and members (Okta's AIW update)", () => {
    const body = {
      schemas: [GROUP],
      displayName: 'Test SCIMv2',
      members: [{ value: 'u_cy', display: 'test.user@okta.local' }],
    };
    expect(groupReplacedFromScim(aGroup(), body, BASE_URL)).toEqual({
      displayName: 'Test SCIMv2',
      memberIds: ['u_cy'],
    });
  });

  it('keeps members when the body leaves them out; refuses another id', () => {
    expect(
      groupReplacedFromScim(aGroup(), { schemas: [GROUP], displayName: 'X' }, BASE_URL).memberIds,
    ).toEqual(['u_ada', 'u_bob']);
    expectScimError(
      () => groupReplacedFromScim(aGroup(), { schemas: [GROUP], id: 'g_other', displayName: 'X' }, BASE_URL),
      'mutability',
    );
  });
});
