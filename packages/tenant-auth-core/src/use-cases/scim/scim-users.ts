import {
  assertNotLastActiveOwner,
  deactivateUser,
  forgetEndedAccess,
  isActive,
  reactivateUser,
  removeUser,
} from '../../mechanisms/deactivation.js';
import { normalizeEmail } from '../../mechanisms/inputs/email.js';
import type { Services } from '../../mechanisms/services.js';
import { domainOf } from '../../mechanisms/sso/domain-names.js';
import { NO_PASSWORD } from '../../mechanisms/sso/no-password.js';
import { heldToSso, revokeSessionsSsoDidNotMake } from '../../mechanisms/sso/sso-hold.js';
import type { ScimGroupRecord } from '../../ports/scim-store.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { errorOf, fieldError, notFound, TenantAuthError, validationError } from '../../vocabulary/errors.js';
import { normalizeUuid, uuidv7 } from '../../vocabulary/ids.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import type {
  ScimClaims,
  ScimList,
  ScimUser,
  ScimUserFields,
  ScimUserFilter,
} from '../../vocabulary/scim.js';
import { directoryWrite, tenantOf } from './scim-directory.js';
import { parsePage, parseUserFields, scimUserOf } from './scim-fields.js';
import { DIRECTORY, rederiveRoles } from './scim-roles.js';
import type { TenantAuthScim } from './scim-types.js';

type Reader = Pick<CompleteTransactionStores, 'scim'>;

/** @internal Users as their directory sees them: with their profiles and groups, read in two batches. */
export async function scimUsersOf(
  stores: Reader,
  tenantId: string,
  users: readonly UserRecord[],
): Promise<ScimUser[]> {
  const ids = users.map((u) => u.id);
  if (ids.length === 0) return [];
  const profiles = new Map((await stores.scim.findProfiles(tenantId, ids)).map((p) => [p.userId, p]));
  const groups = new Map<string, ScimGroupRecord[]>();
  for (const { userId, group } of await stores.scim.groupsOfUsers(tenantId, ids)) {
    groups.set(userId, [...(groups.get(userId) ?? []), group]);
  }
  return users.map((u) => scimUserOf(u, profiles.get(u.id), groups.get(u.id) ?? []));
}

async function scimUserById(
  stores: Reader & Pick<CompleteTransactionStores, 'users'>,
  tenantId: string,
  rawId: string,
) {
  const id = normalizeUuid(rawId);
  const user = id === null ? null : await stores.users.findById(tenantId, id);
  if (!user) throw notFound();
  const [scimUser] = await scimUsersOf(stores, tenantId, [user]);
  return { user, scimUser: scimUser as ScimUser };
}

const emailTaken = () => errorOf('email_taken');
/** `403 forbidden`: the address of an owner, or of a user the directory does not manage, is not the directory's to change. */
const addressNotTheDirectorys = () =>
  new TenantAuthError(
    'forbidden',
    "A directory changes the address of the users it manages only, never an owner's.",
  );

/**
 * An address the directory may give a user of the tenant: in one of the tenant's verified domains
 * (`userName`: `domain_not_verified`), since a directory speaks only for its own domains.
 */
async function assertOwnDomain(
  tx: CompleteTransactionStores,
  tenantId: string,
  email: string,
): Promise<void> {
  const domain = domainOf(email);
  const verified = domain === null ? null : await tx.sso.findVerifiedDomain(domain);
  if (verified?.tenantId !== tenantId) {
    throw validationError([
      fieldError(
        'userName',
        'domain_not_verified',
        "The address is not in one of the tenant's verified domains.",
      ),
    ]);
  }
}

/** @internal Users: what a tenant's directory reads, provisions, links, changes, deactivates and removes. */
export function createScimUsers(
  services: Services,
): Pick<
  TenantAuthScim,
  'getScimUser' | 'listScimUsers' | 'createScimUser' | 'updateScimUser' | 'deleteScimUser'
> {
  const { stores, clock, random, events } = services;
  const base = (tenantId: string, subjectId: string, context: RequestContext) =>
    events.base({ tenantId, subjectId, ...DIRECTORY }, context);

  /** The users a filter matches, oldest first: at most one by address or id. */
  async function filtered(tenantId: string, filter: ScimUserFilter): Promise<UserRecord[]> {
    const value: unknown = filter?.value;
    if (typeof value !== 'string')
      throw validationError([fieldError('filter', 'invalid_value', 'A filter compares with a string.')]);
    if (filter.attribute === 'email') {
      const user = await stores.users.findByEmail(normalizeEmail(value));
      return user?.tenantId === tenantId ? [user] : [];
    }
    if (filter.attribute === 'id') {
      const id = normalizeUuid(value);
      const user = id === null ? null : await stores.users.findById(tenantId, id);
      return user ? [user] : [];
    }
    if (filter.attribute === 'externalId') {
      const users: UserRecord[] = [];
      for (const id of await stores.scim.findUserIdsByExternalId(tenantId, value)) {
        const user = await stores.users.findById(tenantId, id);
        if (user) users.push(user);
      }
      return users;
    }
    throw validationError([
      fieldError('filter', 'invalid_value', 'The filter is not one this server answers.'),
    ]);
  }

  /** Applies `active` to a user, under the lock: deactivation revokes what it must, in this transaction. */
  async function applyActive(
    tx: CompleteTransactionStores,
    record: Parameters<Parameters<typeof events.transaction>[0]>[1],
    user: UserRecord,
    active: boolean,
    context: RequestContext,
  ): Promise<boolean> {
    if (active === isActive(user)) return false;
    if (!active) {
      await assertNotLastActiveOwner(tx, user);
      await deactivateUser(tx, user, clock.now());
      await record({ type: 'user_deactivated', ...base(user.tenantId, user.id, context) });
      return true;
    }
    await reactivateUser(tx, user);
    await record({ type: 'user_reactivated', ...base(user.tenantId, user.id, context) });
    return false;
  }

  return {
    async getScimUser(directory: ScimClaims, userId: string): Promise<ScimUser> {
      return (await scimUserById(stores, tenantOf(directory), userId)).scimUser;
    },

    async listScimUsers(directory, query): Promise<ScimList<ScimUser>> {
      const tenantId = tenantOf(directory);
      const { startIndex, count } = parsePage(query);
      if (query.filter !== undefined) {
        const users = await filtered(tenantId, query.filter);
        const page = users.slice(startIndex - 1, startIndex - 1 + count);
        return {
          totalResults: users.length,
          startIndex,
          resources: await scimUsersOf(stores, tenantId, page),
        };
      }
      const { total, users } = await stores.scim.pageUsers(tenantId, {
        offset: startIndex - 1,
        limit: count,
      });
      return { totalResults: total, startIndex, resources: await scimUsersOf(stores, tenantId, users) };
    },

    async createScimUser(directory: ScimClaims, rawFields: ScimUserFields, context: RequestContext = {}) {
      const fields = parseUserFields(rawFields);
      let sessionsEnded = false;
      const result = await directoryWrite(events, directory, async (tx, record, tenantId) => {
        await assertOwnDomain(tx, tenantId, fields.email);
        const existing = await tx.users.findByEmail(fields.email);
        if (existing && existing.tenantId !== tenantId) throw emailTaken();
        const [profile] = existing ? await tx.scim.findProfiles(tenantId, [existing.id]) : [];
        // A user another POST (or a link) already gave the directory is a duplicate: 409 uniqueness.
        if (profile?.managed) throw emailTaken();
        const now = clock.now();
        let user: UserRecord;
        if (existing) {
          // Linking: the directory takes over a user of this tenant; it keeps its id and its password.
          user = existing;
          if (!existing.emailVerified) {
            await tx.users.markEmailVerified(tenantId, existing.id);
            user = { ...existing, emailVerified: true };
          }
        } else {
          user = {
            id: uuidv7(clock, random),
            tenantId,
            email: fields.email,
            passwordHash: NO_PASSWORD,
            role: 'member',
            emailVerified: true,
            createdAt: now,
          };
          await tx.users.create(user);
        }
        const { email: _email, active, ...names } = fields;
        const written = { tenantId, userId: user.id, ...names, managed: true, updatedAt: now };
        await tx.scim.saveProfile(written);
        await record({ type: 'scim_user_created', ...base(tenantId, user.id, context) });
        sessionsEnded = await applyActive(tx, record, user, active, context);
        if (!existing) {
          // A new user is in no group yet: its role is member, as written; it is what was written.
          return { user: scimUserOf({ ...user, active }, written, []), linked: false };
        }
        // A linked user's role now follows its groups (owners excepted).
        await rederiveRoles(tx, events, record, { tenantId, userIds: [user.id], actor: DIRECTORY, context });
        const { scimUser } = await scimUserById(tx, tenantId, user.id);
        return { user: scimUser, linked: true };
      });
      if (sessionsEnded) forgetEndedAccess(services);
      return result;
    },

    async updateScimUser(directory, userId, change, context: RequestContext = {}) {
      let sessionsEnded = false;
      const result = await directoryWrite(events, directory, async (tx, record, tenantId) => {
        const { user, scimUser } = await scimUserById(tx, tenantId, userId);
        // Whatever `change` throws rolls the transaction back: nothing is written.
        const fields = parseUserFields(change(scimUser));
        const now = clock.now();
        let changed = false;
        const [profile] = await tx.scim.findProfiles(tenantId, [user.id]);
        if (fields.email !== user.email) {
          // The address is how an account is recovered: a directory changes only the addresses of the users
          // it manages, never an owner's (owners are made, and kept, by owners), so that its token cannot
          // take over an account it did not provision by changing its address and resetting its password.
          if (user.role === 'owner' || !profile?.managed) throw addressNotTheDirectorys();
          // userName and the work email are one address: the same rules as a new user's.
          await assertOwnDomain(tx, tenantId, fields.email);
          const holder = await tx.users.findByEmail(fields.email);
          if (holder && holder.id !== user.id) throw emailTaken();
          await tx.users.changeEmail(tenantId, user.id, fields.email);
          // Links sent to the old address stop working, as for any change of address.
          await tx.oneTimeTokens.revokeForUser(tenantId, user.id, 'password_reset');
          await tx.oneTimeTokens.revokeForUser(tenantId, user.id, 'email_verification');
          // An address its tenant enforces SSO for holds the user: its other sessions end with the change
          // (docs/http-api.md, "Rules that change in 1.3": held users stay held).
          if (await heldToSso(tx, { ...user, email: fields.email }))
            sessionsEnded = (await revokeSessionsSsoDidNotMake(tx, user, now)) > 0;
          changed = true;
        }
        const { email: _email, active, ...names } = fields;
        const namesChange = (Object.keys(names) as (keyof typeof names)[]).some(
          (k) => names[k] !== scimUser[k],
        );
        // Any change is the directory's last change of the user (its meta.lastModified).
        if (changed || namesChange || active !== isActive(user)) {
          await tx.scim.saveProfile({
            tenantId,
            userId: user.id,
            ...names,
            managed: profile?.managed ?? false,
            updatedAt: now,
          });
        }
        if (changed || namesChange)
          await record({ type: 'scim_user_updated', ...base(tenantId, user.id, context) });
        if (await applyActive(tx, record, user, active, context)) sessionsEnded = true;
        return (await scimUserById(tx, tenantId, user.id)).scimUser;
      });
      if (sessionsEnded) forgetEndedAccess(services);
      return result;
    },

    async deleteScimUser(directory: ScimClaims, userId: string, context: RequestContext = {}) {
      await directoryWrite(events, directory, async (tx, record, tenantId) => {
        const { user } = await scimUserById(tx, tenantId, userId);
        // As DELETE /tenants/me/members/:userId does: never the last active owner; its sessions go with it.
        await removeUser(tx, user);
        await record({ type: 'scim_user_deleted', ...base(tenantId, user.id, context) });
      });
      forgetEndedAccess(services);
    },
  };
}
