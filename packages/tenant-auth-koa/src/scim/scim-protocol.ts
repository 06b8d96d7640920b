/**
 * The names SCIM 2.0 speaks (RFC 7643, RFC 7644), stated once for the modules of this folder
 * (docs/http-api.md, "SCIM 2.0 provisioning per tenant").
 */

/** The schema URNs of the resources and messages this server reads and writes. */
export const SCIM_SCHEMAS = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

/** The media type of every SCIM request and answer (RFC 7644 3.1). */
export const SCIM_MEDIA_TYPE = 'application/scim+json';

/** The most resources one list answer holds; a larger `count` is capped to it. */
export const SCIM_MAX_RESULTS = 200;

/** The two resource types, with the endpoint each lives at under the base URL. */
export const SCIM_RESOURCE_TYPES = {
  User: { endpoint: '/Users', schema: SCIM_SCHEMAS.user },
  Group: { endpoint: '/Groups', schema: SCIM_SCHEMAS.group },
} as const;

/** `User` or `Group`. */
export type ScimResourceTypeName = keyof typeof SCIM_RESOURCE_TYPES;

/**
 * The URL of a resource: the base URL (`PUBLIC_URL + "/scim/v2"`, a trailing slash or not) and the
 * resource type's endpoint, then the id (percent-encoded) when given.
 */
export function scimLocation(baseUrl: string, resourceType: ScimResourceTypeName, id?: string): string {
  const collection = `${baseUrl.replace(/\/+$/, '')}${SCIM_RESOURCE_TYPES[resourceType].endpoint}`;
  return id === undefined ? collection : `${collection}/${encodeURIComponent(id)}`;
}
