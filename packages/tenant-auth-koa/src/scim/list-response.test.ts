import { describe, expect, it } from 'vitest';
import { listResponse, parseListQuery } from './list-response.js';
import { expectScimError } from './test-helpers.js';

describe('parseListQuery', () => {
  it("reads Okta's and Entra ID's paging", () => {
    expect(parseListQuery({ startIndex: '1', count: '100' })).toEqual({ startIndex: 1, count: 100 });
    expect(parseListQuery({ startIndex: '101', count: '100' })).toEqual({ startIndex: 101, count: 100 });
    expect(parseListQuery({ startIndex: '1', count: '2' })).toEqual({ startIndex: 1, count: 2 });
  });

  it('no paging is the first 200', () => {
    expect(parseListQuery({})).toEqual({ startIndex: 1, count: 200 });
  });

  it('caps count at 200; a negative count is 0 and a startIndex below 1 is 1 (RFC 7644 3.4.2.4)', () => {
    expect(parseListQuery({ count: '500' }).count).toBe(200);
    expect(parseListQuery({ count: '-3' }).count).toBe(0);
    expect(parseListQuery({ count: '0' }).count).toBe(0);
    expect(parseListQuery({ startIndex: '0' }).startIndex).toBe(1);
    expect(parseListQuery({ startIndex: '-7' }).startIndex).toBe(1);
  });

  it.each([['abc'], [''], ['1.5'], ['1e3'], [' 2'], ['99999999999999999999']])(
    'refuses %j as 400 invalidValue',
    (value) => {
      expectScimError(() => parseListQuery({ count: value }), 'invalidValue');
      expectScimError(() => parseListQuery({ startIndex: value }), 'invalidValue');
    },
  );
});

describe('listResponse', () => {
  it('is a ListResponse: totalResults counts the query, itemsPerPage the page', () => {
    expect(listResponse([{ id: 'a' }, { id: 'b' }], { totalResults: 42, startIndex: 11 })).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 42,
      startIndex: 11,
      itemsPerPage: 2,
      Resources: [{ id: 'a' }, { id: 'b' }],
    });
    expect(listResponse([], { totalResults: 0, startIndex: 1 })).toMatchObject({
      itemsPerPage: 0,
      Resources: [],
    });
  });
});
