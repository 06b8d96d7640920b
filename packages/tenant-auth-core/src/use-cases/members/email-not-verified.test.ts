import { describe, expect, it } from 'vitest';
import { code, join, owner, setup, verify } from '../../testing/test-helpers.js';

describe('vouching for others needs a verified email (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)")', () => {
  it('refuses an invitation from an owner whose email is not verified with email_not_verified, and sends nothing', async () => {
    const t = setup();
    // Someone registered with an address that is not theirs: they must not plant members.
    const squatter = await owner(t.auth, 'ada@example.com');
    const err = await code(
      t.auth.createInvitation(squatter.claims, { email: 'accomplice@example.com', role: 'owner' }),
    );
    expect(err).toBe('email_not_verified');
    await t.settle();
    expect(t.inbox.to('accomplice@example.com')).toHaveLength(0);
    expect(await t.auth.listInvitations(squatter.claims)).toEqual([]);
    expect(t.events.some((e) => e.type === 'invitation_created')).toBe(false);
  });

  it('refuses a role change by an owner whose email is not verified, and changes nothing', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const bob = await join(t, ada.claims, 'bob@example.com', 'member');
    // No flow of 1.1 leaves an unverified owner beside other members (inviting needs a verified email,
    // invitees and changed addresses are verified), so the stores are given one: an owner whose address
    // is not proven, with a live session.
    const cat = await join(t, ada.claims, 'cat@example.com', 'member');
    const session = await t.stores.sessions.findById(cat.claims.tenantId, cat.claims.sessionId);
    const dan = { ...cat.user, id: '01900000-0000-7000-8000-00000000da11', email: 'dan@example.com' };
    await t.stores.transaction(async (tx) => {
      await tx.users.create({
        ...dan,
        passwordHash: 'x',
        role: 'owner',
        emailVerified: false,
        createdAt: t.clock.now(),
      });
      await tx.sessions.create({
        ...(session as NonNullable<typeof session>),
        id: '01900000-0000-7000-8000-00000000da12',
        userId: dan.id,
        refreshHash: 'dan',
      });
    });
    const danClaims = { ...cat.claims, userId: dan.id, sessionId: '01900000-0000-7000-8000-00000000da12' };
    expect(await code(t.auth.changeMemberRole(danClaims, bob.user.id, 'admin'))).toBe('email_not_verified');
    expect((await t.stores.users.findById(bob.user.tenantId, bob.user.id))?.role).toBe('member');
    expect(t.events.some((e) => e.type === 'member_role_changed')).toBe(false);
    expect(await code(t.auth.changeMemberRole(ada.claims, bob.user.id, 'admin'))).toBe('ok');
  });

  it('maps to status 403', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    expect(await code(t.auth.createInvitation(ada.claims, { email: 'x@example.com', role: 'member' }))).toBe(
      'ok',
    );
    const { ERROR_STATUS } = await import('../../vocabulary/errors.js');
    expect(ERROR_STATUS.email_not_verified).toBe(403);
  });
});
