import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { TenantAuthStores, TransactionStores } from '../../ports/tenant-auth-stores.js';
import {
  code,
  fieldCodes,
  join,
  owner,
  PASSWORD,
  setup,
  ssoTenant,
  verify,
} from '../../testing/test-helpers.js';
import type { ScimClaims, ScimUserFields } from '../../vocabulary/scim.js';

// SCIM 2.0 provisioning (docs/http-api.md, "SCIM 2.0 provisioning per tenant"), in core's words: the token
// its owners manage, and the users and groups a tenant's directory writes through it.

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const fieldsOf = (email: string, overrides: Partial<ScimUserFields> = {}): ScimUserFields => ({
  email,
  externalId: `ext-${email}`,
  givenName: 'Given',
  familyName: 'Family',
  formattedName: 'Given Family',
  displayName: 'Given',
  active: true,
  ...overrides,
});

/** A tenant (acme.test verified) whose owner Ada made a SCIM token; Bob a member who signed up with a password. */
async function withDirectory(
  options: Parameters<typeof setup>[0] = {},
  before: (t: ReturnType<typeof setup>) => Promise<unknown> = async () => {},
) {
  const t = setup(options);
  await before(t);
  const ada = await owner(t.auth, 'ada@acme.test');
  await verify(t, 'ada@acme.test');
  await ssoTenant(t, ada.claims, 'acme.test');
  const { token } = await t.auth.createScimToken(ada.claims);
  const directory = await t.auth.verifyScimToken(token);
  // What follows happens later: lists by time and the audit log's order are certain.
  t.clock.advance(1000);
  return { t, ada, token, directory };
}

/** Another tenant with its own verified domain and directory. */
async function otherTenant(t: ReturnType<typeof setup>) {
  const zed = await owner(t.auth, 'zed@zeta.test');
  await verify(t, 'zed@zeta.test');
  await ssoTenant(t, zed.claims, 'zeta.test');
  const { token } = await t.auth.createScimToken(zed.claims);
  return { zed, directory: await t.auth.verifyScimToken(token) };
}

const roleOf = async (t: ReturnType<typeof setup>, tenantId: string, userId: string) =>
  (await t.stores.users.findById(tenantId, userId))?.role;

describe('the SCIM token (POST/DELETE /tenants/me/scim/token)', () => {
  it('is tas_ and 43 base64url characters, stored only as its SHA-256, and names its tenant', async () => {
    const { t, ada, token, directory } = await withDirectory();
    expect(token).toMatch(/^tas_[A-Za-z0-9_-]{43}$/);
    expect(directory).toEqual({ actorType: 'scim', tenantId: ada.user.tenantId, tokenHash: sha256(token) });
    const stored = await t.stores.scim.findToken(ada.user.tenantId);
    expect(stored?.tokenHash).toBe(sha256(token));
    // Never in an event, the audit log or the settings.
    await t.auth.whenIdle();
    const audit = await t.stores.auditEvents.list(ada.user.tenantId, { limit: 100 });
    expect(audit.find((e) => e.type === 'scim_token_created')).toMatchObject({
      actorType: 'user',
      actorId: ada.user.id,
    });
    const settings = await t.auth.getScimSettings(ada.claims);
    for (const seen of [t.events, audit, settings])
      expect(JSON.stringify(seen)).not.toContain(token.slice(4));
  });

  it('a new token replaces the previous one, which stops at once; a revoked one too', async () => {
    const { t, ada, token } = await withDirectory();
    const second = await t.auth.createScimToken(ada.claims);
    expect(await code(t.auth.verifyScimToken(token))).toBe('invalid_token');
    expect(await code(t.auth.verifyScimToken(second.token))).toBe('ok');
    t.clock.advance(1000);
    await t.auth.revokeScimToken(ada.claims);
    expect(await code(t.auth.verifyScimToken(second.token))).toBe('invalid_token');
    expect(await code(t.auth.revokeScimToken(ada.claims))).toBe('not_found');
    const types = (await t.stores.auditEvents.list(ada.user.tenantId, { limit: 100 })).map((e) => e.type);
    expect(types.filter((type) => type.startsWith('scim_token'))).toEqual([
      'scim_token_revoked',
      'scim_token_created',
      'scim_token_created',
    ]);
  });

  it('refuses a write whose token was replaced or revoked after it was verified (a write queued behind the change): nothing written', async () => {
    const { t, ada, directory } = await withDirectory();
    // Verified, then the owner rotates the token before the write runs.
    await t.auth.createScimToken(ada.claims);
    expect(await code(t.auth.createScimUser(directory, fieldsOf('dan@acme.test')))).toBe('invalid_token');
    expect(await t.stores.users.findByEmail('dan@acme.test')).toBeNull();
    // Verified, then revoked.
    const { token } = await t.auth.createScimToken(ada.claims);
    const current = await t.auth.verifyScimToken(token);
    const dan = (await t.auth.createScimUser(current, fieldsOf('dan@acme.test'))).user;
    t.clock.advance(1000);
    await t.auth.revokeScimToken(ada.claims);
    expect(await code(t.auth.updateScimUser(current, dan.id, (u) => ({ ...u, active: false })))).toBe(
      'invalid_token',
    );
    expect((await t.stores.users.findById(ada.user.tenantId, dan.id))?.active).not.toBe(false);
    expect(await code(t.auth.deleteScimUser(current, dan.id))).toBe('invalid_token');
    expect(await code(t.auth.createScimGroup(current, { displayName: 'Admins', memberIds: [] }))).toBe(
      'invalid_token',
    );
  });

  it('refuses anything but the exact format with invalid_token', async () => {
    const { t, token } = await withDirectory();
    for (const bad of [
      '',
      token.slice(0, -1),
      `${token}A`,
      token.replace('tas_', 'tak_'),
      ` ${token}`,
      `tas_${'+'.repeat(43)}`,
      `tas_${'A'.repeat(43)}`,
      42 as unknown as string,
    ]) {
      expect(await code(t.auth.verifyScimToken(bad))).toBe('invalid_token');
    }
  });

  it('records its use at most once a minute', async () => {
    const { t, ada, token } = await withDirectory();
    const lastUsed = async () => (await t.auth.getScimSettings(ada.claims)).lastUsedAt;
    // Verified when withDirectory made it, a second before now.
    const first = new Date(t.clock.now().getTime() - 1000);
    expect(await lastUsed()).toEqual(first);
    t.clock.advance(58_000);
    await t.auth.verifyScimToken(token);
    expect(await lastUsed()).toEqual(first);
    t.clock.advance(1_000);
    await t.auth.verifyScimToken(token);
    expect(await lastUsed()).toEqual(t.clock.now());
  });

  it('is an owner’s, with a recent authentication; the settings are an admin’s', async () => {
    const { t, ada } = await withDirectory();
    const bob = await join(t, ada.claims, 'bob@acme.test', 'admin');
    const cy = await join(t, ada.claims, 'cy@acme.test', 'member');
    expect(await code(t.auth.createScimToken(bob.claims))).toBe('forbidden');
    expect(await code(t.auth.revokeScimToken(bob.claims))).toBe('forbidden');
    expect(await code(t.auth.setScimGroupRoles(bob.claims, { groupRoles: [] }))).toBe('forbidden');
    expect(await t.auth.getScimSettings(bob.claims)).toMatchObject({ enabled: true, groupRoles: [] });
    expect(await code(t.auth.getScimSettings(cy.claims))).toBe('forbidden');
    t.clock.advance(3_600_000);
    const stale = await t.auth.verifyAccessToken((await t.auth.refresh(ada.refreshToken)).accessToken);
    expect(await code(t.auth.createScimToken(stale))).toBe('reauthentication_required');
  });

  it('answers feature_unavailable on a store set without the scim store', async () => {
    const full = createMemoryStores();
    const without = (tx: TransactionStores): TransactionStores => {
      const { scim: _scim, ...rest } = tx;
      return rest;
    };
    const bundle: TenantAuthStores = {
      ...without(full),
      transaction: (fn) => full.transaction((tx) => fn(without(tx))),
    };
    const t = setup({ stores: bundle });
    const ada = await owner(t.auth, 'ada@acme.test');
    expect(await code(t.auth.createScimToken(ada.claims))).toBe('feature_unavailable');
    expect(await code(t.auth.verifyScimToken(`tas_${'A'.repeat(43)}`))).toBe('feature_unavailable');
    const directory: ScimClaims = { actorType: 'scim', tenantId: ada.user.tenantId, tokenHash: sha256('x') };
    expect(await code(t.auth.listScimUsers(directory, { startIndex: 1, count: 10 }))).toBe(
      'feature_unavailable',
    );
  });
});

describe('provisioning users (POST /Users)', () => {
  it('creates a verified user without a password, role member, audited as the directory', async () => {
    const { t, ada, directory } = await withDirectory();
    const { user, linked } = await t.auth.createScimUser(directory, fieldsOf('Dan@Acme.test'));
    expect(linked).toBe(false);
    expect(user).toMatchObject({
      email: 'dan@acme.test',
      externalId: 'ext-Dan@Acme.test',
      givenName: 'Given',
      active: true,
      groups: [],
    });
    const stored = await t.stores.users.findById(ada.user.tenantId, user.id);
    expect(stored).toMatchObject({ role: 'member', emailVerified: true });
    expect(await code(t.auth.login({ email: 'dan@acme.test', password: stored?.passwordHash ?? '' }))).toBe(
      'invalid_credentials',
    );
    expect(await t.auth.getScimUser(directory, user.id)).toEqual(user);
    const audit = await t.stores.auditEvents.list(ada.user.tenantId, {
      limit: 100,
      type: 'scim_user_created',
    });
    expect(audit).toEqual([
      expect.objectContaining({ actorType: 'scim', actorId: null, subjectId: user.id }),
    ]);
  });

  it('refuses an address outside the tenant’s verified domains, and a malformed one', async () => {
    const { t, directory } = await withDirectory();
    const other = await otherTenant(t);
    expect(await fieldCodes(t.auth.createScimUser(directory, fieldsOf('dan@elsewhere.test')))).toEqual([
      'userName:domain_not_verified',
    ]);
    // Verified, but by another tenant: not this directory's to speak for.
    expect(await fieldCodes(t.auth.createScimUser(directory, fieldsOf('dan@zeta.test')))).toEqual([
      'userName:domain_not_verified',
    ]);
    expect(await fieldCodes(t.auth.createScimUser(directory, fieldsOf('not an address')))).toEqual([
      'userName:invalid_email',
    ]);
    expect(await code(t.auth.createScimUser(other.directory, fieldsOf('dan@zeta.test')))).toBe('ok');
  });

  it('refuses an address in use: in another tenant, or by a user this directory already manages', async () => {
    // zed registered with a password, in its own tenant, before acme.test was verified.
    const { t, ada, directory } = await withDirectory({}, (t) => owner(t.auth, 'zed@acme.test'));
    expect(await code(t.auth.createScimUser(directory, fieldsOf('zed@acme.test')))).toBe('email_taken');
    await t.auth.createScimUser(directory, fieldsOf('dan@acme.test'));
    expect(await code(t.auth.createScimUser(directory, fieldsOf('DAN@acme.test')))).toBe('email_taken');
    const users = await t.stores.users.listByTenant(ada.user.tenantId);
    expect(users.map((u) => u.email)).toEqual(['ada@acme.test', 'dan@acme.test']);
  });

  it('links a user of this tenant no directory manages: same id, keeps its password, role follows groups', async () => {
    const { t, ada, directory } = await withDirectory();
    const bob = await join(t, ada.claims, 'bob@acme.test', 'admin');
    const { user, linked } = await t.auth.createScimUser(directory, fieldsOf('bob@acme.test'));
    expect(linked).toBe(true);
    expect(user.id).toBe(bob.user.id);
    expect(await code(t.auth.login({ email: 'bob@acme.test', password: PASSWORD }))).toBe('ok');
    // No group gives it more: a managed user is a member.
    expect(await roleOf(t, ada.user.tenantId, bob.user.id)).toBe('member');
    // An owner is linked too, and its role is never changed.
    const linkedOwner = await t.auth.createScimUser(directory, fieldsOf('ada@acme.test'));
    expect(linkedOwner.linked).toBe(true);
    expect(await roleOf(t, ada.user.tenantId, ada.user.id)).toBe('owner');
  });

  it('ten concurrent creates of one userName: one wins, the others are email_taken', async () => {
    const { t, ada, directory } = await withDirectory();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => code(t.auth.createScimUser(directory, fieldsOf('eve@acme.test')))),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'email_taken')).toHaveLength(9);
    expect(await t.stores.scim.listManagedUserIds(ada.user.tenantId)).toHaveLength(1);
  });
});

describe('reading users (GET /Users)', () => {
  it('lists every user of the tenant oldest first, paged, filtered by address, externalId or id', async () => {
    const { t, ada, directory } = await withDirectory();
    const dan = (await t.auth.createScimUser(directory, fieldsOf('dan@acme.test', { externalId: 'e-dan' })))
      .user;
    t.clock.advance(1000);
    const eve = (await t.auth.createScimUser(directory, fieldsOf('eve@acme.test'))).user;
    const all = await t.auth.listScimUsers(directory, { startIndex: 1, count: 10 });
    expect(all.totalResults).toBe(3);
    expect(all.resources.map((u) => u.email)).toEqual(['ada@acme.test', 'dan@acme.test', 'eve@acme.test']);
    expect(all.resources[0]).toMatchObject({ id: ada.user.id, externalId: null });
    const page = await t.auth.listScimUsers(directory, { startIndex: 2, count: 1 });
    expect(page).toMatchObject({ totalResults: 3, startIndex: 2 });
    expect(page.resources.map((u) => u.id)).toEqual([dan.id]);
    const byEmail = await t.auth.listScimUsers(directory, {
      filter: { attribute: 'email', value: 'EVE@Acme.Test' },
      startIndex: 1,
      count: 10,
    });
    expect(byEmail.resources.map((u) => u.id)).toEqual([eve.id]);
    const byExternalId = (value: string) =>
      t.auth.listScimUsers(directory, {
        filter: { attribute: 'externalId', value },
        startIndex: 1,
        count: 10,
      });
    expect((await byExternalId('e-dan')).resources.map((u) => u.id)).toEqual([dan.id]);
    expect((await byExternalId('E-DAN')).totalResults).toBe(0);
    const byId = await t.auth.listScimUsers(directory, {
      filter: { attribute: 'id', value: eve.id },
      startIndex: 1,
      count: 0,
    });
    expect(byId).toEqual({ totalResults: 1, startIndex: 1, resources: [] });
  });

  it('another tenant’s users are not_found, never listed or matched', async () => {
    const { t, directory } = await withDirectory();
    const other = await otherTenant(t);
    const theirs = (await t.auth.createScimUser(other.directory, fieldsOf('yan@zeta.test'))).user;
    expect(await code(t.auth.getScimUser(directory, theirs.id))).toBe('not_found');
    expect(await code(t.auth.getScimUser(directory, 'not-a-uuid'))).toBe('not_found');
    const listed = await t.auth.listScimUsers(directory, {
      filter: { attribute: 'email', value: 'yan@zeta.test' },
      startIndex: 1,
      count: 10,
    });
    expect(listed.totalResults).toBe(0);
    expect((await t.auth.listScimUsers(directory, { startIndex: 1, count: 200 })).totalResults).toBe(1);
  });
});

describe('changing users (PUT/PATCH /Users/:id)', () => {
  it('changes names and the address together, under the domain and uniqueness rules', async () => {
    const { t, ada, directory } = await withDirectory();
    const dan = (await t.auth.createScimUser(directory, fieldsOf('dan@acme.test'))).user;
    await t.auth.createScimUser(directory, fieldsOf('eve@acme.test'));
    const edit = (change: Partial<ScimUserFields>) =>
      t.auth.updateScimUser(directory, dan.id, (current) => ({ ...current, ...change }));
    t.clock.advance(5000);
    const renamed = await edit({ email: 'Daniel@acme.test', displayName: 'Daniel' });
    expect(renamed).toMatchObject({ email: 'daniel@acme.test', displayName: 'Daniel' });
    expect(renamed.updatedAt).toEqual(t.clock.now());
    expect(await t.stores.users.findByEmail('daniel@acme.test')).toMatchObject({
      id: dan.id,
      emailVerified: true,
    });
    expect(await fieldCodes(edit({ email: 'daniel@elsewhere.test' }))).toEqual([
      'userName:domain_not_verified',
    ]);
    expect(await code(edit({ email: 'eve@acme.test' }))).toBe('email_taken');
    expect(await fieldCodes(edit({ email: 'nope' }))).toEqual(['userName:invalid_email']);
    const types = (
      await t.stores.auditEvents.list(ada.user.tenantId, { limit: 100, type: 'scim_user_updated' })
    ).map((e) => [e.actorType, e.subjectId]);
    expect(types).toEqual([['scim', dan.id]]);
  });

  it('never changes the address of an owner or of a user it does not manage (forbidden): its token takes over no account', async () => {
    const { t, ada, directory } = await withDirectory();
    const bob = await join(t, ada.claims, 'bob@acme.test', 'admin');
    const toMallory = (id: string) =>
      t.auth.updateScimUser(directory, id, (current) => ({ ...current, email: 'mallory@acme.test' }));
    // Bob was made by an admin, not by the directory; Ada is the owner.
    expect(await code(toMallory(bob.user.id))).toBe('forbidden');
    expect(await code(toMallory(ada.user.id))).toBe('forbidden');
    // Linked, Ada is managed, and still an owner: her address stays hers.
    await t.auth.createScimUser(directory, fieldsOf('ada@acme.test'));
    expect(await code(toMallory(ada.user.id))).toBe('forbidden');
    expect((await t.stores.users.findById(ada.user.tenantId, ada.user.id))?.email).toBe('ada@acme.test');
    expect((await t.stores.users.findById(ada.user.tenantId, bob.user.id))?.email).toBe('bob@acme.test');
    // Its other attributes and its active flag are still the directory's to write.
    expect(
      await code(t.auth.updateScimUser(directory, bob.user.id, (u) => ({ ...u, displayName: 'Bob' }))),
    ).toBe('ok');
    // Once linked, a member's address follows the directory.
    await t.auth.createScimUser(directory, fieldsOf('bob@acme.test'));
    expect(await code(toMallory(bob.user.id))).toBe('ok');
  });

  it('an address moved into a domain the tenant enforces SSO for ends the user’s password sessions', async () => {
    const { t, ada, directory } = await withDirectory();
    const bob = await join(t, ada.claims, 'bob@acme.test', 'member');
    const cy = await join(t, ada.claims, 'cy@acme.test', 'member');
    // Linked by the directory, their addresses are its to change.
    await t.auth.createScimUser(directory, fieldsOf('bob@acme.test'));
    await t.auth.createScimUser(directory, fieldsOf('cy@acme.test'));
    const move = (userId: string, email: string) =>
      t.auth.updateScimUser(directory, userId, (u) => ({ ...u, email }));
    // Without enforce, a move holds no one.
    await move(cy.user.id, 'cyril@acme.test');
    expect(await code(t.auth.refresh(cy.refreshToken))).toBe('ok');
    // Enforce written to the store alone: the password sessions made before it are still there.
    const connection = await t.stores.sso.findConnection(ada.user.tenantId);
    if (!connection) throw new Error('no connection');
    await t.stores.sso.saveConnection({ ...connection, enforce: true });
    await move(bob.user.id, 'robert@acme.test');
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.login({ email: 'robert@acme.test', password: PASSWORD }))).toBe('sso_required');
  });

  it('active false deactivates (sessions, refresh and access tokens, and its API keys with it), true reactivates', async () => {
    const { t, ada, directory } = await withDirectory();
    const bob = await join(t, ada.claims, 'bob@acme.test', 'admin');
    const key = await t.auth.createApiKey(bob.claims, { name: 'bob CI', role: 'member' });
    await t.auth.createScimUser(directory, fieldsOf('bob@acme.test'));
    // Verified a moment ago, so cached for a few seconds: refused at once all the same after the change.
    await t.auth.verifyApiKey(key.secret);
    const off = await t.auth.updateScimUser(directory, bob.user.id, (u) => ({ ...u, active: false }));
    expect(off.active).toBe(false);
    expect(t.auth.peekApiKey(key.secret)).toBeUndefined();
    expect(await code(t.auth.verifyApiKey(key.secret))).toBe('invalid_token');
    expect(await code(t.auth.listMembers(bob.claims))).toBe('invalid_token');
    t.clock.advance(1000);
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.login({ email: 'bob@acme.test', password: PASSWORD }))).toBe('account_disabled');
    const on = await t.auth.updateScimUser(directory, bob.user.id, (u) => ({ ...u, active: true }));
    expect(on.active).toBe(true);
    expect(await code(t.auth.login({ email: 'bob@acme.test', password: PASSWORD }))).toBe('ok');
    const audit = await t.stores.auditEvents.list(ada.user.tenantId, { limit: 100, userId: bob.user.id });
    expect(
      audit.filter((e) => e.type.startsWith('user_')).map((e) => [e.type, e.actorType, e.actorId]),
    ).toEqual([
      ['user_reactivated', 'scim', null],
      ['user_deactivated', 'scim', null],
    ]);
  });

  it('never deactivates or removes the last active owner', async () => {
    const { t, ada, directory } = await withDirectory();
    expect(await code(t.auth.updateScimUser(directory, ada.user.id, (u) => ({ ...u, active: false })))).toBe(
      'last_owner',
    );
    expect(await code(t.auth.deleteScimUser(directory, ada.user.id))).toBe('last_owner');
    expect(await t.stores.users.findById(ada.user.tenantId, ada.user.id)).toMatchObject({ role: 'owner' });
    // With a second owner, the first may go.
    await join(t, ada.claims, 'olga@acme.test', 'owner');
    expect(await code(t.auth.updateScimUser(directory, ada.user.id, (u) => ({ ...u, active: false })))).toBe(
      'ok',
    );
  });

  it('writes nothing when the change callback throws, and another tenant’s user is not_found', async () => {
    const { t, ada, directory } = await withDirectory();
    const dan = (await t.auth.createScimUser(directory, fieldsOf('dan@acme.test'))).user;
    const before = await t.stores.auditEvents.list(ada.user.tenantId, { limit: 100 });
    await expect(
      t.auth.updateScimUser(directory, dan.id, () => {
        throw new Error('bad patch');
      }),
    ).rejects.toThrow('bad patch');
    expect(await t.auth.getScimUser(directory, dan.id)).toEqual(dan);
    expect(await t.stores.auditEvents.list(ada.user.tenantId, { limit: 100 })).toEqual(before);
    const other = await otherTenant(t);
    let called = false;
    expect(
      await code(
        t.auth.updateScimUser(other.directory, dan.id, (u) => {
          called = true;
          return u;
        }),
      ),
    ).toBe('not_found');
    expect(called).toBe(false);
    expect(await code(t.auth.deleteScimUser(other.directory, dan.id))).toBe('not_found');
  });
});

describe('removing users (DELETE /Users/:id)', () => {
  it('removes the user as removing a member does: its sessions go with it', async () => {
    const { t, ada, directory } = await withDirectory();
    const bob = await join(t, ada.claims, 'bob@acme.test', 'member');
    await t.auth.deleteScimUser(directory, bob.user.id);
    expect(await t.stores.users.findById(ada.user.tenantId, bob.user.id)).toBeNull();
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.getScimUser(directory, bob.user.id))).toBe('not_found');
    expect(await code(t.auth.deleteScimUser(directory, bob.user.id))).toBe('not_found');
    const audit = await t.stores.auditEvents.list(ada.user.tenantId, {
      limit: 100,
      type: 'scim_user_deleted',
    });
    expect(audit).toEqual([
      expect.objectContaining({ actorType: 'scim', actorId: null, subjectId: bob.user.id }),
    ]);
  });
});

describe('groups and roles (/Groups, PUT /tenants/me/scim/group-roles)', () => {
  async function withMapping() {
    const made = await withDirectory();
    const { t, ada, directory } = made;
    await t.auth.setScimGroupRoles(ada.claims, {
      groupRoles: [
        { group: 'Admins', role: 'admin' },
        { group: 'Staff', role: 'member' },
      ],
    });
    const dan = (await t.auth.createScimUser(directory, fieldsOf('dan@acme.test'))).user;
    return { ...made, dan, tenantId: ada.user.tenantId };
  }

  it('a managed member of a mapped group gets its role; leaving it, renaming or deleting the group takes it away', async () => {
    const { t, directory, dan, tenantId } = await withMapping();
    const group = await t.auth.createScimGroup(directory, { displayName: '  Admins ', memberIds: [dan.id] });
    expect(group).toMatchObject({ displayName: 'Admins', members: [{ id: dan.id, email: 'dan@acme.test' }] });
    expect(await roleOf(t, tenantId, dan.id)).toBe('admin');
    expect((await t.auth.getScimUser(directory, dan.id)).groups).toEqual([
      { id: group.id, displayName: 'Admins' },
    ]);
    await t.auth.updateScimGroup(directory, group.id, (g) => ({ displayName: g.displayName, memberIds: [] }));
    expect(await roleOf(t, tenantId, dan.id)).toBe('member');
    await t.auth.updateScimGroup(directory, group.id, () => ({ displayName: 'Admins', memberIds: [dan.id] }));
    expect(await roleOf(t, tenantId, dan.id)).toBe('admin');
    await t.auth.updateScimGroup(directory, group.id, (g) => ({
      displayName: 'admins',
      memberIds: g.members.map((m) => m.id),
    }));
    // The mapping names groups exactly: `admins` is not `Admins`.
    expect(await roleOf(t, tenantId, dan.id)).toBe('member');
    await t.auth.updateScimGroup(directory, group.id, (g) => ({
      displayName: 'Admins',
      memberIds: g.members.map((m) => m.id),
    }));
    await t.auth.deleteScimGroup(directory, group.id);
    expect(await roleOf(t, tenantId, dan.id)).toBe('member');
    expect(await code(t.auth.getScimGroup(directory, group.id))).toBe('not_found');
    const changes = await t.stores.auditEvents.list(tenantId, { limit: 100, type: 'scim_group_changed' });
    expect(changes).toHaveLength(6);
    expect(
      changes.every((e) => e.actorType === 'scim' && e.actorId === null && e.subjectId === group.id),
    ).toBe(true);
    const roleChanges = await t.stores.auditEvents.list(tenantId, {
      limit: 100,
      type: 'member_role_changed',
    });
    expect(roleChanges.every((e) => e.actorType === 'scim')).toBe(true);
  });

  it('the mapping re-derives every managed user at once; unmanaged users and owners keep their roles', async () => {
    const { t, ada, directory, dan, tenantId } = await withMapping();
    const bob = await join(t, ada.claims, 'bob@acme.test', 'admin');
    await t.auth.createScimUser(directory, fieldsOf('ada@acme.test'));
    await t.auth.createScimGroup(directory, {
      displayName: 'Ops',
      memberIds: [dan.id, bob.user.id, ada.user.id],
    });
    expect(await roleOf(t, tenantId, dan.id)).toBe('member');
    const mapping = await t.auth.setScimGroupRoles(ada.claims, {
      groupRoles: [{ group: 'Ops', role: 'admin' }],
    });
    expect(mapping).toEqual([{ group: 'Ops', role: 'admin' }]);
    expect(await roleOf(t, tenantId, dan.id)).toBe('admin');
    expect(await roleOf(t, tenantId, bob.user.id)).toBe('admin');
    expect(await roleOf(t, tenantId, ada.user.id)).toBe('owner');
    await t.auth.setScimGroupRoles(ada.claims, { groupRoles: [] });
    expect(await roleOf(t, tenantId, dan.id)).toBe('member');
    // Bob is no managed user: his admin role is his admins' to change.
    expect(await roleOf(t, tenantId, bob.user.id)).toBe('admin');
    expect(await roleOf(t, tenantId, ada.user.id)).toBe('owner');
    expect((await t.auth.getScimSettings(ada.claims)).groupRoles).toEqual([]);
  });

  it('refuses owner and unknown roles in the mapping with invalid_role', async () => {
    const { t, ada } = await withDirectory();
    for (const role of ['owner', 'root', undefined]) {
      expect(
        await fieldCodes(
          t.auth.setScimGroupRoles(ada.claims, { groupRoles: [{ group: 'X', role } as never] }),
        ),
      ).toEqual(['role:invalid_role']);
    }
    expect(await t.stores.scim.getGroupRoles(ada.user.tenantId)).toEqual([]);
  });

  it('members must be users of the tenant (unknown_user); displayName is required', async () => {
    const { t, directory, dan } = await withMapping();
    const other = await otherTenant(t);
    expect(
      await fieldCodes(
        t.auth.createScimGroup(directory, { displayName: 'Ops', memberIds: [other.zed.user.id] }),
      ),
    ).toEqual(['members:unknown_user']);
    expect(
      await fieldCodes(t.auth.createScimGroup(directory, { displayName: 'Ops', memberIds: ['x'] })),
    ).toEqual(['members:unknown_user']);
    expect(
      await fieldCodes(t.auth.createScimGroup(directory, { displayName: '   ', memberIds: [] })),
    ).toEqual(['displayName:required']);
    expect(
      await fieldCodes(t.auth.createScimGroup(directory, { displayName: 'x'.repeat(257), memberIds: [] })),
    ).toEqual(['displayName:too_long']);
    const group = await t.auth.createScimGroup(directory, { displayName: 'Ops', memberIds: [dan.id] });
    expect(
      await fieldCodes(
        t.auth.updateScimGroup(directory, group.id, (g) => ({
          displayName: g.displayName,
          memberIds: [other.zed.user.id],
        })),
      ),
    ).toEqual(['members:unknown_user']);
    expect((await t.auth.getScimGroup(directory, group.id)).members.map((m) => m.id)).toEqual([dan.id]);
    // Another tenant's group is not_found to this directory, and its directory's to ours.
    expect(await code(t.auth.getScimGroup(other.directory, group.id))).toBe('not_found');
    expect(await code(t.auth.deleteScimGroup(other.directory, group.id))).toBe('not_found');
    expect(
      await code(t.auth.updateScimGroup(other.directory, group.id, (g) => ({ ...g, memberIds: [] }))),
    ).toBe('not_found');
  });

  it('writes nothing when the group change callback throws', async () => {
    const { t, directory, dan, tenantId } = await withMapping();
    const group = await t.auth.createScimGroup(directory, { displayName: 'Admins', memberIds: [dan.id] });
    const before = await t.stores.auditEvents.list(tenantId, { limit: 100 });
    await expect(
      t.auth.updateScimGroup(directory, group.id, () => {
        throw new Error('bad patch');
      }),
    ).rejects.toThrow('bad patch');
    expect(await t.auth.getScimGroup(directory, group.id)).toEqual(group);
    expect(await t.stores.auditEvents.list(tenantId, { limit: 100 })).toEqual(before);
    expect(await roleOf(t, tenantId, dan.id)).toBe('admin');
  });

  it('lists groups oldest first, paged, filtered by displayName ignoring ASCII case', async () => {
    const { t, directory } = await withDirectory();
    for (const name of ['Admins', 'Staff', 'ADMINS']) {
      await t.auth.createScimGroup(directory, { displayName: name, memberIds: [] });
      t.clock.advance(1000);
    }
    const all = await t.auth.listScimGroups(directory, { startIndex: 1, count: 2 });
    expect(all.totalResults).toBe(3);
    expect(all.resources.map((g) => g.displayName)).toEqual(['Admins', 'Staff']);
    const named = await t.auth.listScimGroups(directory, {
      displayName: 'admins',
      startIndex: 1,
      count: 500,
    });
    expect(named.totalResults).toBe(2);
    expect(named.resources.map((g) => g.displayName)).toEqual(['Admins', 'ADMINS']);
    const other = await otherTenant(t);
    expect((await t.auth.listScimGroups(other.directory, { startIndex: 1, count: 10 })).totalResults).toBe(0);
  });
});

describe('a deleted user in SCIM', () => {
  it('leaves its groups: the member list no longer names it', async () => {
    const { t, directory } = await withDirectory();
    const dan = (await t.auth.createScimUser(directory, fieldsOf('dan@acme.test'))).user;
    const group = await t.auth.createScimGroup(directory, { displayName: 'Ops', memberIds: [dan.id] });
    await t.auth.deleteScimUser(directory, dan.id);
    expect((await t.auth.getScimGroup(directory, group.id)).members).toEqual([]);
  });
});
