import { describe, expect, it } from 'vitest';
import {
  code,
  failure,
  fieldCodes,
  join,
  owner,
  PASSWORD,
  setup,
  verify,
} from '../../testing/test-helpers.js';

describe('roles', () => {
  it('makes the registering user the owner, and puts the role and email state in tokens and responses', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    expect(ada.user).toMatchObject({ role: 'owner', emailVerified: false });
    expect(ada.claims).toMatchObject({ role: 'owner', emailVerified: false });
  });

  it("lists the members of the caller's tenant only, oldest first", async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    const eve = await owner(t.auth, 'eve@example.com');
    const members = await t.auth.listMembers(bob.claims);
    expect(members.map((m) => [m.email, m.role, m.emailVerified])).toEqual([
      // Verified to invite bob (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)": an unverified owner cannot invite).
      ['ada@example.com', 'owner', true],
      ['bob@example.com', 'admin', true],
    ]);
    expect((await t.auth.listMembers(eve.claims)).map((m) => m.email)).toEqual(['eve@example.com']);
  });

  it('lets an owner promote and demote; answers the member as it now is', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    expect(await t.auth.changeMemberRole(ada.claims, bob.user.id, 'admin')).toMatchObject({
      id: bob.user.id,
      role: 'admin',
    });
    expect(await t.auth.changeMemberRole(ada.claims, bob.user.id, 'owner')).toMatchObject({ role: 'owner' });
    expect(await t.auth.changeMemberRole(bob.claims, ada.user.id, 'member')).toMatchObject({
      role: 'member',
    });
    const changed = t.events.filter((e) => e.type === 'member_role_changed');
    expect(changed.map((e) => [e.actorId, e.subjectId, 'role' in e && e.role])).toEqual([
      [ada.user.id, bob.user.id, 'admin'],
      [ada.user.id, bob.user.id, 'owner'],
      [bob.user.id, ada.user.id, 'member'],
    ]);
  });

  it('keeps admins away from owners and from granting owner, and members away from everything', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    expect(await code(t.auth.changeMemberRole(bob.claims, cat.user.id, 'owner'))).toBe('forbidden');
    expect(await code(t.auth.changeMemberRole(bob.claims, ada.user.id, 'member'))).toBe('forbidden');
    expect(await code(t.auth.removeMember(bob.claims, ada.user.id))).toBe('forbidden');
    expect(await code(t.auth.changeMemberRole(cat.claims, bob.user.id, 'member'))).toBe('forbidden');
    expect(await code(t.auth.removeMember(cat.claims, bob.user.id))).toBe('forbidden');
    // What an admin may do.
    expect(await t.auth.changeMemberRole(bob.claims, cat.user.id, 'admin')).toMatchObject({ role: 'admin' });
    expect((await t.auth.listMembers(ada.claims)).map((m) => m.role)).toEqual(['owner', 'admin', 'admin']);
  });

  it('answers not_found for a user of another tenant and for ids that are not ids', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const eve = await owner(t.auth, 'eve@example.com');
    expect(await code(t.auth.changeMemberRole(ada.claims, eve.user.id, 'member'))).toBe('not_found');
    expect(await code(t.auth.removeMember(ada.claims, eve.user.id))).toBe('not_found');
    expect(await code(t.auth.removeMember(ada.claims, 'not-an-id'))).toBe('not_found');
    expect((await t.auth.listMembers(eve.claims))[0]?.role).toBe('owner');
  });

  it('refuses a role that is not one with invalid_role', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    expect(await fieldCodes(t.auth.changeMemberRole(ada.claims, bob.user.id, 'superuser' as never))).toEqual([
      'role:invalid_role',
    ]);
  });

  it('never leaves a tenant without an owner', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    expect(await code(t.auth.changeMemberRole(ada.claims, ada.user.id, 'admin'))).toBe('last_owner');
    expect(await code(t.auth.removeMember(ada.claims, ada.user.id))).toBe('last_owner');
    expect((await t.auth.listMembers(bob.claims)).map((m) => m.role)).toEqual(['owner', 'admin']);
  });

  it('lets exactly one of two owners demoting each other at once succeed', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'owner');
    const results = await Promise.all([
      code(t.auth.changeMemberRole(ada.claims, bob.user.id, 'admin')),
      code(t.auth.changeMemberRole(bob.claims, ada.user.id, 'admin')),
    ]);
    expect(results.sort()).toEqual(['forbidden', 'ok']);
    const roles = (await t.auth.listMembers(ada.claims)).map((m) => m.role);
    expect(roles.filter((r) => r === 'owner')).toHaveLength(1);
  });

  it('refuses a demoted admin at once, whatever its token still says', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    await t.auth.changeMemberRole(ada.claims, bob.user.id, 'member');
    expect(bob.claims.role).toBe('admin');
    expect(await code(t.auth.removeMember(bob.claims, cat.user.id))).toBe('forbidden');
    expect(await code(t.auth.listInvitations(bob.claims))).toBe('forbidden');
    expect(await code(t.auth.listAuditEvents(bob.claims))).toBe('forbidden');
    expect(await code(t.auth.authorize(bob.claims, 'admin'))).toBe('forbidden');
    expect(await t.auth.authorize(bob.claims, 'member')).toMatchObject({ role: 'member' });
    // Its next refresh carries the new role.
    const refreshed = await t.auth.refresh(bob.refreshToken);
    expect((await t.auth.verifyAccessToken(refreshed.accessToken)).role).toBe('member');
  });

  it('removes a member with every session of it, and records who did it', async () => {
    const t = setup({ checkSessionOnVerify: { cacheTtlSeconds: 0 } });
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    const second = await t.auth.login({ email: 'bob@example.com', password: PASSWORD });
    await t.auth.removeMember(ada.claims, bob.user.id);
    expect(await code(t.auth.refresh(bob.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.refresh(second.refreshToken))).toBe('invalid_token');
    expect(await code(t.auth.verifyAccessToken(second.accessToken))).toBe('invalid_token');
    expect(await code(t.auth.login({ email: 'bob@example.com', password: PASSWORD }))).toBe(
      'invalid_credentials',
    );
    expect((await t.auth.listMembers(ada.claims)).map((m) => m.email)).toEqual(['ada@example.com']);
    const removed = t.events.find((e) => e.type === 'member_removed');
    expect(removed).toMatchObject({ actorId: ada.user.id, subjectId: bob.user.id, tenantId: ada.tenant.id });
  });

  it('leaves the member and its sessions as they were when a removal fails', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    expect(await code(t.auth.removeMember(bob.claims, ada.user.id))).toBe('forbidden');
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('ok');
    expect((await t.auth.listMembers(ada.claims)).map((m) => m.email)).toContain('ada@example.com');
  });

  it('answers invalid_token for a caller whose account is gone', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    await t.auth.removeMember(ada.claims, bob.user.id);
    expect(await code(t.auth.listMembers(bob.claims))).toBe('invalid_token');
    expect(await code(t.auth.createInvitation(bob.claims, { email: 'x@example.com', role: 'member' }))).toBe(
      'invalid_token',
    );
  });
});

describe('invitations', () => {
  it('sends a link, lists it as pending, and lets the invitee in with the role and a verified email', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com', 'Analytical Engines');
    await verify(t, 'ada@example.com');
    t.inbox.messages.length = 0;
    const invitation = await t.auth.createInvitation(ada.claims, {
      email: 'Grace@Example.com',
      role: 'admin',
    });
    expect(invitation).toMatchObject({ email: 'grace@example.com', role: 'admin', invitedBy: ada.user.id });
    expect(invitation.expiresAt.getTime() - invitation.createdAt.getTime()).toBe(7 * 86_400_000);
    expect(await t.auth.listInvitations(ada.claims)).toEqual([invitation]);
    // Nothing is sent from inside the call: the message waits in the outbox.
    expect(t.inbox.messages).toHaveLength(0);
    await t.settle();
    const [mail] = t.inbox.to('grace@example.com');
    expect(mail?.subject).toContain('Analytical Engines');
    expect(mail?.html).toContain('https://app.acme.test/accept-invitation?token=');
    const token = t.inbox.token('grace@example.com', '/accept-invitation');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const grace = await t.auth.acceptInvitation({ token, password: PASSWORD, deviceInfo: 'Laptop' });
    expect(grace.user).toMatchObject({
      email: 'grace@example.com',
      role: 'admin',
      emailVerified: true,
      tenantId: ada.tenant.id,
    });
    expect(await t.auth.listInvitations(ada.claims)).toEqual([]);
    expect(t.events.find((e) => e.type === 'invitation_accepted')).toMatchObject({
      actorId: grace.user.id,
      subjectId: invitation.id,
      sessionId: grace.session.id,
    });
  });

  it('replaces a pending invitation of the same address: the older link stops working', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'member' });
    await t.settle();
    const first = t.inbox.token('grace@example.com', '/accept-invitation');
    await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'admin' });
    await t.settle();
    const second = t.inbox.token('grace@example.com', '/accept-invitation');
    expect(await fieldCodes(t.auth.acceptInvitation({ token: first, password: PASSWORD }))).toEqual([
      'token:invalid_or_expired',
    ]);
    expect((await t.auth.acceptInvitation({ token: second, password: PASSWORD })).user.role).toBe('admin');
  });

  it('stops a revoked invitation from working, and answers not_found for another tenant', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    const eve = await owner(t.auth, 'eve@example.com');
    const invitation = await t.auth.createInvitation(ada.claims, {
      email: 'grace@example.com',
      role: 'member',
    });
    await t.settle();
    expect(await code(t.auth.revokeInvitation(eve.claims, invitation.id))).toBe('not_found');
    expect(await t.auth.listInvitations(eve.claims)).toEqual([]);
    await t.auth.revokeInvitation(ada.claims, invitation.id);
    expect(await code(t.auth.revokeInvitation(ada.claims, invitation.id))).toBe('not_found');
    const token = t.inbox.token('grace@example.com', '/accept-invitation');
    expect(await fieldCodes(t.auth.acceptInvitation({ token, password: PASSWORD }))).toEqual([
      'token:invalid_or_expired',
    ]);
  });

  it('expires after its lifetime', async () => {
    const t = setup({ invitationTtlSeconds: 3600 });
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'member' });
    await t.settle();
    t.clock.advance(3600_000);
    const token = t.inbox.token('grace@example.com', '/accept-invitation');
    expect(await fieldCodes(t.auth.acceptInvitation({ token, password: PASSWORD }))).toEqual([
      'token:invalid_or_expired',
    ]);
  });

  it('keeps the invitation usable when accepting fails', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'member' });
    await t.settle();
    const token = t.inbox.token('grace@example.com', '/accept-invitation');
    expect(await fieldCodes(t.auth.acceptInvitation({ token, password: 'short' }))).toContain(
      'password:too_short',
    );
    expect(await code(t.auth.acceptInvitation({ token, password: PASSWORD }))).toBe('ok');
  });

  it('lets exactly one of several concurrent accepts of one link succeed', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'member' });
    await t.settle();
    const token = t.inbox.token('grace@example.com', '/accept-invitation');
    const results = await Promise.all(
      Array.from({ length: 5 }, () => code(t.auth.acceptInvitation({ token, password: PASSWORD }))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'validation_failed')).toHaveLength(4);
    expect((await t.auth.listMembers(ada.claims)).map((m) => m.email).sort()).toEqual([
      'ada@example.com',
      'grace@example.com',
    ]);
  });

  it('refuses an address that already has an account, at invitation and at acceptance', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    await owner(t.auth, 'eve@example.com');
    expect(
      await fieldCodes(t.auth.createInvitation(ada.claims, { email: 'eve@example.com', role: 'member' })),
    ).toEqual(['email:email_taken']);
    await t.auth.createInvitation(ada.claims, { email: 'late@example.com', role: 'member' });
    await t.settle();
    const token = t.inbox.token('late@example.com', '/accept-invitation');
    await owner(t.auth, 'late@example.com');
    expect(await fieldCodes(t.auth.acceptInvitation({ token, password: PASSWORD }))).toEqual([
      'email:email_taken',
    ]);
  });

  it('validates the address and the role, and keeps admins from inviting owners and members from inviting', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    expect(
      await fieldCodes(t.auth.createInvitation(ada.claims, { email: 'nope', role: 'boss' as never })),
    ).toEqual(['email:invalid_email', 'role:invalid_role']);
    expect(await code(t.auth.createInvitation(bob.claims, { email: 'x@example.com', role: 'owner' }))).toBe(
      'forbidden',
    );
    expect(await code(t.auth.createInvitation(cat.claims, { email: 'x@example.com', role: 'member' }))).toBe(
      'forbidden',
    );
    expect(await code(t.auth.createInvitation(bob.claims, { email: 'x@example.com', role: 'admin' }))).toBe(
      'ok',
    );
    expect(await code(t.auth.createInvitation(ada.claims, { email: 'y@example.com', role: 'owner' }))).toBe(
      'ok',
    );
  });

  it('grants nothing once its inviter was removed or demoted below what it grants', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'admin');
    await t.auth.createInvitation(bob.claims, { email: 'alt@example.com', role: 'admin' });
    const cat = await join(t, ada.claims, 'cat@example.com', 'owner');
    await t.auth.createInvitation(cat.claims, { email: 'alt2@example.com', role: 'owner' });
    await t.settle();
    await t.auth.removeMember(ada.claims, bob.user.id);
    await t.auth.changeMemberRole(ada.claims, cat.user.id, 'admin');
    for (const address of ['alt@example.com', 'alt2@example.com']) {
      const token = t.inbox.token(address, '/accept-invitation');
      expect(await fieldCodes(t.auth.acceptInvitation({ token, password: PASSWORD })), address).toEqual([
        'token:invalid_or_expired',
      ]);
    }
    // Still an admin: its member invitation holds.
    await t.auth.createInvitation(cat.claims, { email: 'alt3@example.com', role: 'member' });
    await t.settle();
    const token = t.inbox.token('alt3@example.com', '/accept-invitation');
    expect((await t.auth.acceptInvitation({ token, password: PASSWORD })).user.role).toBe('member');
  });

  it('refuses with unavailable when no mail is configured', async () => {
    const t = setup({ mail: undefined });
    const ada = await owner(t.auth, 'ada@example.com');
    expect(await code(t.auth.createInvitation(ada.claims, { email: 'x@example.com', role: 'member' }))).toBe(
      'unavailable',
    );
  });

  it('refuses a sixth invitation to one address within the hour (the mailbox budget)', async () => {
    const t = setup({ rateLimit: {} });
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    for (let i = 0; i < 5; i++)
      await t.auth.createInvitation(ada.claims, { email: 'x@example.com', role: 'member' });
    const err = await failure(
      t.auth.createInvitation(ada.claims, { email: 'x@example.com', role: 'member' }),
    );
    expect(err.code).toBe('rate_limited');
    expect(err.rateLimit?.budget).toBe('mailbox');
    expect(await code(t.auth.createInvitation(ada.claims, { email: 'y@example.com', role: 'member' }))).toBe(
      'ok',
    );
  });
});
