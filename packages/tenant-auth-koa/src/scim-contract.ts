// The request and response bodies of the SCIM token and group-role routes under the prefix
// (docs/http-api.md, "SCIM 2.0 provisioning per tenant"). The `/scim/v2` routes themselves speak SCIM
// (RFC 7643, RFC 7644) and are not part of this contract. Loads nothing but zod at run time.
import { z } from 'zod';
import { isoDate } from './contract-parts.js';

const baseUrl = () =>
  z.string().meta({ description: 'Where the directory connects: `PUBLIC_URL + "/scim/v2"`.' });

/**
 * One line of the group-to-role mapping: the members of the group named `group` get at least `role`.
 *
 * @example
 * const { groupRoles } = scimGroupRolesSchema.parse(await res.json());
 */
export const scimGroupRoleSchema = z
  .object({
    group: z.string().meta({ description: "A group's `displayName` (exact match)." }),
    role: z.enum(['admin', 'member']).meta({ description: 'Never `owner`: owners are made by owners.' }),
  })
  .meta({ id: 'ScimGroupRole', description: 'A group of the directory and the role its members get.' });

/**
 * The body of `POST /tenants/me/scim/token`: the token, shown this once.
 *
 * @example
 * const { token, baseUrl } = createdScimTokenSchema.parse(await res.json());
 */
export const createdScimTokenSchema = z
  .object({
    token: z
      .string()
      .regex(/^tas_[A-Za-z0-9_-]{43}$/)
      .meta({ description: '`tas_` and 256 random bits (base64url): shown this once, never again.' }),
    createdAt: isoDate(),
    baseUrl: baseUrl(),
  })
  .meta({ id: 'CreatedScimToken', description: 'The body of `POST /tenants/me/scim/token`.' });

/**
 * The tenant's SCIM connection (core's `ScimSettings`, with the base URL a directory is given), never the
 * token.
 *
 * @example
 * const { enabled, baseUrl, lastUsedAt } = scimSettingsSchema.parse(body.scim);
 */
export const scimSettingsSchema = z
  .object({
    enabled: z.boolean().meta({ description: 'Whether a token exists: the directory can connect.' }),
    baseUrl: baseUrl(),
    createdAt: isoDate().nullable().meta({ description: 'When the current token was created.' }),
    lastUsedAt: isoDate()
      .nullable()
      .meta({ description: 'When the token last authenticated a request (to the minute).' }),
    groupRoles: z.array(scimGroupRoleSchema),
  })
  .meta({ id: 'ScimSettings', description: "The tenant's SCIM connection; never the token." });

/**
 * The body of `GET /tenants/me/scim`.
 *
 * @example
 * const { scim } = scimResponseSchema.parse(await res.json());
 */
export const scimResponseSchema = z
  .object({ scim: scimSettingsSchema })
  .meta({ id: 'ScimResponse', description: 'The body of `GET /tenants/me/scim`.' });

/**
 * The body of `PUT /tenants/me/scim/group-roles`.
 *
 * @example
 * const { groupRoles } = scimGroupRolesSchema.parse(await res.json());
 */
export const scimGroupRolesSchema = z
  .object({ groupRoles: z.array(scimGroupRoleSchema) })
  .meta({ id: 'ScimGroupRoles', description: 'The group-to-role mapping.' });

/** @internal The request body of `PUT /tenants/me/scim/group-roles`. */
export const setScimGroupRolesRequestSchema = z
  .object({
    groupRoles: z
      .array(
        z.object({
          group: z.string().max(256),
          role: z.string().meta({ description: '`admin` or `member` (`owner` is `invalid_role`).' }),
        }),
      )
      .max(100),
  })
  .meta({ id: 'SetScimGroupRolesRequest', description: 'The body of `PUT /tenants/me/scim/group-roles`.' });

/**
 * JSON of a line of the group-to-role mapping.
 *
 * @example
 * const [first] = (await res.json()).groupRoles as ScimGroupRoleJson[];
 */
export type ScimGroupRoleJson = z.output<typeof scimGroupRoleSchema>;
