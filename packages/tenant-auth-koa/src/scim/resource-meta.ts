import { type ScimResourceTypeName, scimLocation } from './scim-protocol.js';

/** A resource's `meta` (RFC 7643 3.1). */
export interface ScimMeta {
  resourceType: ScimResourceTypeName;
  /** ISO 8601. */
  created: string;
  /** ISO 8601. */
  lastModified: string;
  location: string;
}

/** The `meta` of a user or group record. */
export function metaOf(
  resourceType: ScimResourceTypeName,
  record: { id: string; createdAt: Date; updatedAt: Date },
  baseUrl: string,
): ScimMeta {
  return {
    resourceType,
    created: record.createdAt.toISOString(),
    lastModified: record.updatedAt.toISOString(),
    location: scimLocation(baseUrl, resourceType, record.id),
  };
}
