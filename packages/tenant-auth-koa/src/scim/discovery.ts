import { listResponse, type ScimListResponse } from './list-response.js';
import { GROUP_SCHEMA, type ScimSchemaDefinition, USER_SCHEMA } from './schemas.js';
import {
  SCIM_MAX_RESULTS,
  SCIM_RESOURCE_TYPES,
  SCIM_SCHEMAS,
  type ScimResourceTypeName,
} from './scim-protocol.js';

/**
 * The discovery documents (RFC 7644 4, RFC 7643 5 to 7): what a directory reads to learn what this
 * server supports. `/ResourceTypes` and `/Schemas` answer a `ListResponse` (docs/http-api.md, "SCIM 2.0
 * provisioning per tenant").
 */

/** The schemas this server speaks, in the order `GET /Schemas` lists them. */
const SCHEMAS: readonly ScimSchemaDefinition[] = [USER_SCHEMA, GROUP_SCHEMA];

function base(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * `GET /ServiceProviderConfig`: patch and filter (at most 200 results) supported; bulk, sort, ETags and
 * password changes not; the tenant's SCIM token as an OAuth bearer token.
 *
 * @example
 * serviceProviderConfig('https://auth.example.com/scim/v2').filter // { supported: true, maxResults: 200 }
 */
export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SCIM_SCHEMAS.serviceProviderConfig],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
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
    meta: { resourceType: 'ServiceProviderConfig', location: `${base(baseUrl)}/ServiceProviderConfig` },
  };
}

/** One resource type (RFC 7643 6). */
export interface ScimResourceTypeDocument {
  schemas: [typeof SCIM_SCHEMAS.resourceType];
  id: ScimResourceTypeName;
  name: ScimResourceTypeName;
  endpoint: string;
  description: string;
  schema: string;
  schemaExtensions: [];
  meta: { resourceType: 'ResourceType'; location: string };
}

/**
 * `GET /ResourceTypes`: User and Group, as a `ListResponse`.
 *
 * @example
 * resourceTypes(baseUrl).Resources.map((type) => type.endpoint) // ['/Users', '/Groups']
 */
export function resourceTypes(baseUrl: string): ScimListResponse<ScimResourceTypeDocument> {
  const documents = (Object.keys(SCIM_RESOURCE_TYPES) as ScimResourceTypeName[]).map((name) => {
    const type = SCIM_RESOURCE_TYPES[name];
    const schema = SCHEMAS.find((candidate) => candidate.id === type.schema) as ScimSchemaDefinition;
    return {
      schemas: [SCIM_SCHEMAS.resourceType] as [typeof SCIM_SCHEMAS.resourceType],
      id: name,
      name,
      endpoint: type.endpoint,
      description: schema.description,
      schema: type.schema,
      schemaExtensions: [] as [],
      meta: { resourceType: 'ResourceType' as const, location: `${base(baseUrl)}/ResourceTypes/${name}` },
    };
  });
  return listResponse(documents, { totalResults: documents.length, startIndex: 1 });
}

/** One schema (RFC 7643 7). */
export interface ScimSchemaDocument extends ScimSchemaDefinition {
  schemas: [typeof SCIM_SCHEMAS.schema];
  meta: { resourceType: 'Schema'; location: string };
}

/**
 * `GET /Schemas`: the User and Group schemas with the attributes this server stores, as a
 * `ListResponse`.
 *
 * @example
 * schemas(baseUrl).Resources.map((schema) => schema.id) // [SCIM_SCHEMAS.user, SCIM_SCHEMAS.group]
 */
export function schemas(baseUrl: string): ScimListResponse<ScimSchemaDocument> {
  const documents = SCHEMAS.map((schema) => ({
    schemas: [SCIM_SCHEMAS.schema] as [typeof SCIM_SCHEMAS.schema],
    ...schema,
    meta: { resourceType: 'Schema' as const, location: `${base(baseUrl)}/Schemas/${schema.id}` },
  }));
  return listResponse(documents, { totalResults: documents.length, startIndex: 1 });
}
