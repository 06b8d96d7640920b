import { SCIM_SCHEMAS } from './scim-protocol.js';

/** The `scimType` values of RFC 7644 3.12 (table 9). */
export const SCIM_TYPES = [
  'invalidFilter',
  'tooMany',
  'uniqueness',
  'mutability',
  'invalidSyntax',
  'invalidPath',
  'noTarget',
  'invalidValue',
  'invalidVers',
  'sensitive',
] as const;

/** One of {@link SCIM_TYPES}. */
export type ScimType = (typeof SCIM_TYPES)[number];

/**
 * A request SCIM's rules refuse: the HTTP status, RFC 7644's `scimType` (absent for a `401`, `404` or
 * `429`) and a detail that never repeats the request's values.
 */
export class ScimError extends Error {
  readonly status: number;
  readonly scimType: ScimType | undefined;

  constructor(status: number, scimType: ScimType | undefined, detail: string) {
    super(detail);
    this.name = 'ScimError';
    this.status = status;
    this.scimType = scimType;
  }
}

/** A `400` with the given `scimType`: every refusal of this folder's parsers and appliers. */
export function scimBadRequest(scimType: ScimType, detail: string): ScimError {
  return new ScimError(400, scimType, detail);
}

/** An error answer of SCIM (RFC 7644 3.12): `status` is a string. */
export interface ScimErrorBody {
  schemas: [typeof SCIM_SCHEMAS.error];
  status: string;
  scimType?: ScimType;
  detail: string;
}

/** The body that answers an error, in SCIM's error form. */
export function scimErrorBody(error: {
  status: number;
  scimType?: ScimType | undefined;
  detail: string;
}): ScimErrorBody {
  return {
    schemas: [SCIM_SCHEMAS.error],
    status: String(error.status),
    ...(error.scimType === undefined ? {} : { scimType: error.scimType }),
    detail: error.detail,
  };
}

/** The error form of a {@link ScimError}. */
export function scimErrorBodyOf(error: ScimError): ScimErrorBody {
  return scimErrorBody({ status: error.status, scimType: error.scimType, detail: error.message });
}
