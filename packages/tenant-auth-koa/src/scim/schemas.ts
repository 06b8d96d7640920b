import { SCIM_SCHEMAS } from './scim-protocol.js';

/**
 * The attributes this server stores, in RFC 7643 section 7's form: the one list that `GET /Schemas`
 * answers, that the filters take their case rules from, and that the resources and PATCH appliers
 * write (a test ties them). Attributes of RFC 7643 that are not here (`nickName`, `phoneNumbers`,
 * `password`, the enterprise extension, …) are accepted and ignored.
 */

/** An attribute definition (RFC 7643 7). */
export interface ScimAttributeDefinition {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'default' | 'never' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: ScimAttributeDefinition[];
}

/** A schema (RFC 7643 7), without the `schemas` and `meta` that `GET /Schemas` adds. */
export interface ScimSchemaDefinition {
  id: string;
  name: string;
  description: string;
  attributes: ScimAttributeDefinition[];
}

function text(
  name: string,
  description: string,
  more: Partial<ScimAttributeDefinition> = {},
): ScimAttributeDefinition {
  return {
    name,
    type: 'string',
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...more,
  };
}

/** The User schema: `userName` is the user's one address, also its one work email. */
export const USER_SCHEMA: ScimSchemaDefinition = {
  id: SCIM_SCHEMAS.user,
  name: 'User',
  description: 'A user of the tenant.',
  attributes: [
    text('userName', "The user's email address, in one of the tenant's verified domains.", {
      required: true,
      uniqueness: 'server',
    }),
    {
      ...text('name', "The components of the user's name."),
      type: 'complex',
      subAttributes: [
        text('formatted', 'The full name, formatted for display.'),
        text('familyName', 'The family name.'),
        text('givenName', 'The given name.'),
      ],
    },
    text('displayName', 'The name of the user, suitable for display.'),
    {
      ...text('emails', 'The work email: the same address as userName; changing either changes both.'),
      type: 'complex',
      multiValued: true,
      subAttributes: [
        text('value', 'The address.'),
        text('type', 'Always "work".', { canonicalValues: ['work'] }),
        { ...text('primary', 'Always true.'), type: 'boolean' },
      ],
    },
    { ...text('active', 'Whether the user may sign in; false deactivates it.'), type: 'boolean' },
    {
      ...text('groups', 'The groups the user belongs to (change them through the groups).', {
        mutability: 'readOnly',
      }),
      type: 'complex',
      multiValued: true,
      subAttributes: [
        text('value', "The group's id.", { mutability: 'readOnly', caseExact: true }),
        {
          ...text('$ref', "The group's URL.", { mutability: 'readOnly', caseExact: true }),
          type: 'reference',
          referenceTypes: ['Group'],
        },
        text('display', "The group's displayName.", { mutability: 'readOnly' }),
      ],
    },
  ],
};

/** The Group schema. */
export const GROUP_SCHEMA: ScimSchemaDefinition = {
  id: SCIM_SCHEMAS.group,
  name: 'Group',
  description: "A group of the tenant's users; its displayName may map to a role.",
  attributes: [
    text('displayName', 'The name of the group.', { required: true, uniqueness: 'server' }),
    {
      ...text('members', "The group's users."),
      type: 'complex',
      multiValued: true,
      subAttributes: [
        text('value', "The user's id.", { mutability: 'immutable', caseExact: true }),
        {
          ...text('$ref', "The user's URL.", { mutability: 'immutable', caseExact: true }),
          type: 'reference',
          referenceTypes: ['User'],
        },
        text('display', "The user's userName.", { mutability: 'readOnly' }),
      ],
    },
  ],
};

/**
 * The common attributes every resource has (RFC 7643 3.1), which RFC 7643 leaves out of the schemas
 * themselves: `id` (the server's, case-exact) and `externalId` (the directory's, case-exact).
 */
export const COMMON_ATTRIBUTES: ScimAttributeDefinition[] = [
  text('id', 'The id this server gave the resource.', {
    caseExact: true,
    mutability: 'readOnly',
    returned: 'always',
    uniqueness: 'server',
  }),
  text('externalId', "The directory's own id of the resource.", { caseExact: true }),
];

/** An attribute (or a `parent.sub` sub-attribute) of a schema or of the common attributes. */
export function attributeDefinition(schema: ScimSchemaDefinition, path: string): ScimAttributeDefinition {
  const [name, sub] = path.split('.');
  const attribute = [...schema.attributes, ...COMMON_ATTRIBUTES].find((a) => a.name === name);
  const found = sub === undefined ? attribute : attribute?.subAttributes?.find((a) => a.name === sub);
  if (found === undefined) throw new Error(`${schema.name} has no attribute ${path}.`);
  return found;
}
