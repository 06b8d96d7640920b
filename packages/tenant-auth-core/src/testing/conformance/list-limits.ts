import { at, memberOf, oneTimeToken, sessionFor } from '../fixtures.js';
import type { ConformanceContext } from './context.js';

/** @internal Conformance cases of the `limit` option of the list methods (the bounds of LIST_LIMITS). */
export function listLimitCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;

  describe('list limits', () => {
    it('answers the first `limit` users, tokens and sessions in each listing order', async () => {
      const owner = await seedUser();
      const members = [
        memberOf(owner.tenantId, { createdAt: at(1) }),
        memberOf(owner.tenantId, { createdAt: at(2) }),
      ];
      for (const m of members) await stores().users.create(m);
      expect((await stores().users.listByTenant(owner.tenantId, { limit: 2 })).map((u) => u.id)).toEqual([
        owner.id,
        members[0]?.id,
      ]);
      const tokens = [
        oneTimeToken('invitation', owner.tenantId, { createdAt: at(1) }),
        oneTimeToken('invitation', owner.tenantId, { createdAt: at(2) }),
        oneTimeToken('invitation', owner.tenantId, { createdAt: at(3) }),
      ];
      for (const t of tokens) await stores().oneTimeTokens.issue(t);
      expect(
        (await stores().oneTimeTokens.listPending(owner.tenantId, 'invitation', at(0), { limit: 2 })).map(
          (t) => t.id,
        ),
      ).toEqual([tokens[2]?.id, tokens[1]?.id]);
      const sessions = [1, 2, 3].map((n) => sessionFor(owner, { createdAt: at(n) }));
      for (const s of sessions) await stores().sessions.create(s);
      expect(
        (await stores().sessions.listActiveForUser(owner.tenantId, owner.id, at(10), { limit: 1 })).map(
          (s) => s.id,
        ),
      ).toEqual([sessions[2]?.id]);
      // Without a limit, everything, as before.
      expect(await stores().users.listByTenant(owner.tenantId)).toHaveLength(3);
    });
  });
}
