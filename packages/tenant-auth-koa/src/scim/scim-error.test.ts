import { describe, expect, it } from 'vitest';
import { ScimError, scimBadRequest, scimErrorBody, scimErrorBodyOf } from './scim-error.js';

describe('scimErrorBody', () => {
  it('is RFC 7644 3.12: the Error schema, status a string, scimType when there is one', () => {
    expect(scimErrorBody({ status: 409, scimType: 'uniqueness', detail: 'The address is in use.' })).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '409',
      scimType: 'uniqueness',
      detail: 'The address is in use.',
    });
    expect(scimErrorBody({ status: 401, detail: 'A valid SCIM token is required.' })).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '401',
      detail: 'A valid SCIM token is required.',
    });
  });

  it('answers a ScimError of the parsers and appliers', () => {
    const error = scimBadRequest('invalidFilter', 'Supported filters: …');
    expect(error).toBeInstanceOf(ScimError);
    expect(scimErrorBodyOf(error)).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '400',
      scimType: 'invalidFilter',
      detail: 'Supported filters: …',
    });
  });
});
