import { describe, expect, it } from 'vitest';
import { memberOf, oneTimeToken, sessionFor } from '../testing/fixtures.js';
import { owner, setup, verify } from '../testing/test-helpers.js';
import { LIST_LIMITS } from '../vocabulary/list-limits.js';

describe('listings are bounded (LIST_LIMITS, documented on each method of TenantAuth)', () => {
  it('answers at most 1,000 members, the oldest', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    for (let i = 0; i < LIST_LIMITS.members; i++) await t.stores.users.create(memberOf(ada.tenant.id));
    const members = await t.auth.listMembers(ada.claims);
    expect(LIST_LIMITS.members).toBe(1000);
    expect(members).toHaveLength(1000);
    expect(members[0]?.id).toBe(ada.user.id);
  });

  it('answers at most 1,000 pending invitations, the newest', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    for (let i = 0; i < LIST_LIMITS.invitations; i++)
      await t.stores.oneTimeTokens.issue(
        oneTimeToken('invitation', ada.tenant.id, { createdAt: new Date(Date.UTC(2025, 0, 1)) }),
      );
    const newest = await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'member' });
    const invitations = await t.auth.listInvitations(ada.claims);
    expect(invitations).toHaveLength(1000);
    expect(invitations[0]?.id).toBe(newest.id);
  });

  it("answers at most 100 of the caller's sessions, the newest", async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    const older = new Date(Date.UTC(2025, 11, 31));
    const user = await t.stores.users.findById(ada.tenant.id, ada.user.id);
    if (!user) throw new Error('ada is gone');
    for (let i = 0; i < LIST_LIMITS.sessions; i++)
      await t.stores.sessions.create(sessionFor(user, { createdAt: older }));
    const sessions = await t.auth.listSessions(ada.claims);
    expect(LIST_LIMITS.sessions).toBe(100);
    expect(sessions).toHaveLength(100);
    expect(sessions[0]).toMatchObject({ id: ada.session.id, current: true });
  });
});
