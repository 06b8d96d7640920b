import { scimBadRequest } from './scim-error.js';
import { SCIM_MAX_RESULTS, SCIM_SCHEMAS } from './scim-protocol.js';

/**
 * Paging of list answers (RFC 7644 3.4.2.4): `startIndex` is 1-based, `count` the page size; every list
 * answer is a `ListResponse`, paged or not.
 */

/** The page a list request asks for. */
export interface ScimPage {
  /** 1-based index of the first result. */
  startIndex: number;
  /** How many results at most, 0 to {@link SCIM_MAX_RESULTS}. */
  count: number;
}

/** A list answer (RFC 7644 3.4.2). */
export interface ScimListResponse<T> {
  schemas: [typeof SCIM_SCHEMAS.listResponse];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: T[];
}

const INTEGER = /^[+-]?[0-9]+$/;

function integer(value: string, name: string): number {
  const number = Number(value);
  if (!INTEGER.test(value) || !Number.isSafeInteger(number)) {
    throw scimBadRequest('invalidValue', `${name} must be an integer.`);
  }
  return number;
}

/**
 * The page of `?startIndex=&count=` (each as sent once, or absent): a `startIndex` below 1 is 1, a
 * negative `count` is 0 (RFC 7644 3.4.2.4), a `count` above 200 is 200, and no `count` is 200. A value
 * that is not an integer is `400 invalidValue`.
 *
 * @example
 * parseListQuery({ startIndex: '101', count: '500' }) // { startIndex: 101, count: 200 }
 */
export function parseListQuery(query: {
  startIndex?: string | undefined;
  count?: string | undefined;
}): ScimPage {
  const startIndex =
    query.startIndex === undefined ? 1 : Math.max(1, integer(query.startIndex, 'startIndex'));
  const count =
    query.count === undefined
      ? SCIM_MAX_RESULTS
      : Math.min(SCIM_MAX_RESULTS, Math.max(0, integer(query.count, 'count')));
  return { startIndex, count };
}

/**
 * The list answer for one page of results, `totalResults` counting every result of the query.
 *
 * @example
 * listResponse(users.map(toScim), { totalResults: 1042, startIndex: 201 })
 */
export function listResponse<T>(
  resources: T[],
  page: { totalResults: number; startIndex: number },
): ScimListResponse<T> {
  return {
    schemas: [SCIM_SCHEMAS.listResponse],
    totalResults: page.totalResults,
    startIndex: page.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
