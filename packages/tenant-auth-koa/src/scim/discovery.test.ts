import { describe, expect, it } from 'vitest';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery.js';
import { USER_SCHEMA } from './schemas.js';
import { userFieldsOf } from './scim-records.js';
import { aUser, BASE_URL, patchOf } from './test-helpers.js';
import { applyUserPatch } from './user-patch.js';
import { userToScim } from './user-resource.js';

describe('serviceProviderConfig', () => {
  it('says patch and filter (200 results at most) yes; bulk, sort, etag and changePassword no; a bearer token', () => {
    expect(serviceProviderConfig(`${BASE_URL}/`)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        {
          type: 'oauthbearertoken',
          name: 'OAuth Bearer Token',
          description: "The tenant's SCIM token, sent as Authorization: Bearer tas_…",
          primary: true,
        },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${BASE_URL}/ServiceProviderConfig` },
    });
  });
});

describe('resourceTypes', () => {
  it('is a ListResponse of User and Group', () => {
    const list = resourceTypes(BASE_URL);
    expect(list).toMatchObject({ totalResults: 2, startIndex: 1, itemsPerPage: 2 });
    expect(list.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:ListResponse']);
    expect(list.Resources).toEqual([
      {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
        id: 'User',
        name: 'User',
        endpoint: '/Users',
        description: 'A user of the tenant.',
        schema: 'urn:ietf:params:scim:schemas:core:2.0:User',
        schemaExtensions: [],
        meta: { resourceType: 'ResourceType', location: `${BASE_URL}/ResourceTypes/User` },
      },
      {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
        id: 'Group',
        name: 'Group',
        endpoint: '/Groups',
        description: "A group of the tenant's users; its displayName may map to a role.",
        schema: 'urn:ietf:params:scim:schemas:core:2.0:Group',
        schemaExtensions: [],
        meta: { resourceType: 'ResourceType', location: `${BASE_URL}/ResourceTypes/Group` },
      },
    ]);
  });
});

describe('schemas', () => {
  it('is a ListResponse of the User and Group schemas, each attribute in RFC 7643 7 form', () => {
    const list = schemas(BASE_URL);
    expect(list).toMatchObject({ totalResults: 2, startIndex: 1, itemsPerPage: 2 });
    expect(list.Resources.map((schema) => [schema.id, schema.meta.location])).toEqual([
      [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        `${BASE_URL}/Schemas/urn:ietf:params:scim:schemas:core:2.0:User`,
      ],
      [
        'urn:ietf:params:scim:schemas:core:2.0:Group',
        `${BASE_URL}/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group`,
      ],
    ]);
    expect(list.Resources[0]?.attributes.map((attribute) => attribute.name)).toEqual([
      'userName',
      'name',
      'displayName',
      'emails',
      'active',
      'groups',
    ]);
    expect(list.Resources[1]?.attributes.map((attribute) => attribute.name)).toEqual([
      'displayName',
      'members',
    ]);
    for (const schema of list.Resources) {
      for (const attribute of schema.attributes) {
        expect(Object.keys(attribute)).toEqual(
          expect.arrayContaining([
            'name',
            'type',
            'multiValued',
            'required',
            'caseExact',
            'mutability',
            'returned',
          ]),
        );
      }
    }
  });

  it('tells the truth: every writable User attribute it lists is one a PATCH writes and the resource shows', () => {
    const user = aUser();
    const samples: Record<string, unknown> = { active: false, 'emails.primary': true, 'emails.type': 'work' };
    for (const attribute of USER_SCHEMA.attributes) {
      const paths =
        attribute.subAttributes === undefined
          ? [attribute.name]
          : attribute.subAttributes.map((sub) => `${attribute.name}.${sub.name}`);
      for (const path of paths) {
        if (attribute.mutability === 'readOnly' || path in samples) continue;
        const value = path.startsWith('emails') ? 'changed@example.com' : `changed ${path}`;
        const fields = applyUserPatch(user, patchOf({ op: 'replace', path, value }), BASE_URL);
        expect(fields, path).not.toEqual(userFieldsOf(user));
        expect(JSON.stringify(userToScim({ ...user, ...fields }, BASE_URL)), path).toContain(value);
      }
    }
    const deactivated = applyUserPatch(
      user,
      patchOf({ op: 'replace', path: 'active', value: false }),
      BASE_URL,
    );
    expect(userToScim({ ...user, ...deactivated }, BASE_URL).active).toBe(false);
  });
});
