import { describe, expect, it } from 'vitest';
import { replayScimConversation, scimConversation } from '../../../../test-support/scim-conversations.js';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery.js';
import { parseGroupFilter, parseUserFilter } from './filter.js';
import { applyGroupPatch } from './group-patch.js';
import { groupFromScim, groupReplacedFromScim, groupToScim } from './group-resource.js';
import { listResponse, parseListQuery } from './list-response.js';
import { ScimError, scimErrorBodyOf } from './scim-error.js';
import type { ScimGroup, ScimGroupFields, ScimUser, ScimUserFields } from './scim-records.js';
import { asciiLower } from './scim-values.js';
import { BASE_URL } from './test-helpers.js';
import { applyUserPatch } from './user-patch.js';
import { userFromScim, userReplacedFromScim, userToScim } from './user-resource.js';

/**
 * The recorded directory conversations (test/fixtures/scim), fed through this folder's parsers,
 * appliers and resources in order, before the routes exist: every filter and PATCH body a directory
 * sends, and what the answer must hold. What core will decide (the verified domains, uniqueness,
 * members being users, not found) is played by `Tenant` below, the smallest stand-in for core's SCIM
 * use cases; the HTTP replay over the real stack replaces it when the routes land.
 */

const CONVERSATIONS = { entra: scimConversation('entra'), okta: scimConversation('okta') };

type StoredUser = Omit<ScimUser, 'groups'>;
type StoredGroup = Omit<ScimGroup, 'members'> & { memberIds: string[] };

/** Core's rules for SCIM, as small as the conversations need (a stand-in until core's use cases exist). */
class Tenant {
  readonly users = new Map<string, StoredUser>();
  readonly groups = new Map<string, StoredGroup>();
  private ticks = 0;

  constructor(private readonly verifiedDomains: string[]) {}

  private now(): Date {
    return new Date(Date.UTC(2026, 0, 1) + 1000 * this.ticks++);
  }

  user(id: string): ScimUser {
    const user = this.users.get(id);
    if (user === undefined) throw new ScimError(404, undefined, 'The resource was not found.');
    const groups = [...this.groups.values()]
      .filter((group) => group.memberIds.includes(id))
      .map((group) => ({ id: group.id, displayName: group.displayName }));
    return { ...user, groups };
  }

  group(id: string): ScimGroup {
    const group = this.groups.get(id);
    if (group === undefined) throw new ScimError(404, undefined, 'The resource was not found.');
    const { memberIds, ...rest } = group;
    return { ...rest, members: memberIds.map((member) => ({ id: member, email: this.user(member).email })) };
  }

  /** Core: one normalised address in a verified domain, unique. */
  saveUser(id: string | null, fields: ScimUserFields): ScimUser {
    const email = asciiLower(fields.email.trim());
    const domain = email.includes('@') ? email.slice(email.lastIndexOf('@') + 1) : '';
    if (!this.verifiedDomains.includes(domain)) {
      throw new ScimError(
        400,
        'invalidValue',
        "userName must be an address in one of the tenant's verified domains.",
      );
    }
    if ([...this.users.values()].some((user) => user.email === email && user.id !== id)) {
      throw new ScimError(409, 'uniqueness', 'The address is in use.');
    }
    const now = this.now();
    const userId = id ?? `u_${this.users.size + 1}`;
    const createdAt = this.users.get(userId)?.createdAt ?? now;
    this.users.set(userId, { ...fields, email, id: userId, createdAt, updatedAt: now });
    return this.user(userId);
  }

  /** Core: members are users of the tenant. */
  saveGroup(id: string | null, fields: ScimGroupFields): ScimGroup {
    if (fields.memberIds.some((member) => !this.users.has(member))) {
      throw new ScimError(400, 'invalidValue', 'Members are users of the tenant.');
    }
    const now = this.now();
    const groupId = id ?? `g_${this.groups.size + 1}`;
    const createdAt = this.groups.get(groupId)?.createdAt ?? now;
    this.groups.set(groupId, { ...fields, id: groupId, createdAt, updatedAt: now });
    return this.group(groupId);
  }
}

interface Answer {
  status: number;
  body?: unknown;
}

function answer(tenant: Tenant, method: string, path: string, body: unknown): Answer {
  const url = new URL(path, 'https://scim.invalid');
  const query = (name: string) => url.searchParams.get(name) ?? undefined;
  const [collection, id, ...rest] = url.pathname.split('/').filter(Boolean);
  expect(rest, path).toEqual([]);
  const page = () => parseListQuery({ startIndex: query('startIndex'), count: query('count') });
  const listed = <T>(all: T[]) => {
    const { startIndex, count } = page();
    return listResponse(all.slice(startIndex - 1, startIndex - 1 + count), {
      totalResults: all.length,
      startIndex,
    });
  };
  const matches = (actual: string | null, filter: { value: string; caseExact: boolean }) =>
    actual !== null &&
    (filter.caseExact ? actual === filter.value : asciiLower(actual) === asciiLower(filter.value));
  const route = `${method} /${collection}${id === undefined ? '' : '/:id'}`;
  switch (route) {
    case 'GET /ServiceProviderConfig':
      return { status: 200, body: serviceProviderConfig(BASE_URL) };
    case 'GET /ResourceTypes':
      return { status: 200, body: resourceTypes(BASE_URL) };
    case 'GET /Schemas':
      return { status: 200, body: schemas(BASE_URL) };
    case 'GET /Users': {
      const text = query('filter');
      const filter = text === undefined ? null : parseUserFilter(text);
      const users = [...tenant.users.keys()].map((userId) => tenant.user(userId));
      const found = users.filter((user) => filter === null || matches(user[filter.attribute], filter));
      return { status: 200, body: listed(found.map((user) => userToScim(user, BASE_URL))) };
    }
    case 'GET /Users/:id':
      return { status: 200, body: userToScim(tenant.user(id as string), BASE_URL) };
    case 'POST /Users':
      return { status: 201, body: userToScim(tenant.saveUser(null, userFromScim(body)), BASE_URL) };
    case 'PUT /Users/:id': {
      const fields = userReplacedFromScim(tenant.user(id as string), body, BASE_URL);
      return { status: 200, body: userToScim(tenant.saveUser(id as string, fields), BASE_URL) };
    }
    case 'PATCH /Users/:id': {
      const fields = applyUserPatch(tenant.user(id as string), body, BASE_URL);
      return { status: 200, body: userToScim(tenant.saveUser(id as string, fields), BASE_URL) };
    }
    case 'DELETE /Users/:id':
      tenant.user(id as string);
      tenant.users.delete(id as string);
      for (const group of tenant.groups.values()) group.memberIds = group.memberIds.filter((m) => m !== id);
      return { status: 204 };
    case 'GET /Groups': {
      const text = query('filter');
      const filter = text === undefined ? null : parseGroupFilter(text);
      const groups = [...tenant.groups.keys()].map((groupId) => tenant.group(groupId));
      const found = groups.filter((group) => filter === null || matches(group.displayName, filter));
      const members = query('excludedAttributes') !== 'members';
      return { status: 200, body: listed(found.map((group) => groupToScim(group, BASE_URL, { members }))) };
    }
    case 'GET /Groups/:id': {
      const members = query('excludedAttributes') !== 'members';
      return { status: 200, body: groupToScim(tenant.group(id as string), BASE_URL, { members }) };
    }
    case 'POST /Groups':
      return { status: 201, body: groupToScim(tenant.saveGroup(null, groupFromScim(body)), BASE_URL) };
    case 'PUT /Groups/:id': {
      const fields = groupReplacedFromScim(tenant.group(id as string), body, BASE_URL);
      return { status: 200, body: groupToScim(tenant.saveGroup(id as string, fields), BASE_URL) };
    }
    case 'PATCH /Groups/:id': {
      const fields = applyGroupPatch(tenant.group(id as string), body, BASE_URL);
      return { status: 200, body: groupToScim(tenant.saveGroup(id as string, fields), BASE_URL) };
    }
    case 'DELETE /Groups/:id':
      tenant.group(id as string);
      tenant.groups.delete(id as string);
      return { status: 204 };
    default:
      throw new Error(`No route for ${route}.`);
  }
}

function answerOrError(tenant: Tenant, method: string, path: string, body: unknown): Answer {
  try {
    return answer(tenant, method, path, body);
  } catch (error) {
    if (error instanceof ScimError) return { status: error.status, body: scimErrorBodyOf(error) };
    throw error;
  }
}

describe.each(Object.entries(CONVERSATIONS))('the recorded %s conversation', (_, recorded) => {
  it('names its sources, and each exchange its section', () => {
    expect(recorded.sources.length).toBeGreaterThan(0);
    for (const exchange of recorded.exchanges) {
      expect(recorded.sources.some((source) => exchange.source.startsWith(`${source.title} > `))).toBe(true);
    }
  });

  it('replays through the parsers, appliers and resources: every answer holds what the fixture expects', async () => {
    const tenant = new Tenant(recorded.tenant.verifiedDomains);
    await replayScimConversation(recorded, async ({ method, path, body }) =>
      answerOrError(tenant, method, path, body),
    );
  });
});

describe('the filters the directories send', () => {
  it('each one parses to the attribute core searches', () => {
    const filters = Object.values(CONVERSATIONS).flatMap((recorded) =>
      recorded.exchanges
        .map((exchange) => new URL(exchange.request.path, 'https://scim.invalid'))
        .filter((url) => url.searchParams.has('filter'))
        .map((url) => [url.pathname, url.searchParams.get('filter') as string] as const),
    );
    expect(
      filters.map(([path, filter]) =>
        path === '/Users' ? parseUserFilter(filter) : parseGroupFilter(filter),
      ),
    ).toEqual([
      { attribute: 'email', value: 'non-existent user', caseExact: false },
      { attribute: 'email', value: 'jyoung@testuser.com', caseExact: false },
      { attribute: 'email', value: 'jyoung@testuser.com', caseExact: false },
      { attribute: 'externalId', value: 'jyoung', caseExact: true },
      { attribute: 'displayName', value: 'displayName', caseExact: false },
      { attribute: 'email', value: 'test.user@okta.local', caseExact: false },
      { attribute: 'email', value: 'test.user@okta.local', caseExact: false },
    ]);
  });
});
