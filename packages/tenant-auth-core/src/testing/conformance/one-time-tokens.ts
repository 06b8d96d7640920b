import { at, oneTimeToken } from '../fixtures.js';
import { type ConformanceContext, inAnotherTenant, Rollback } from './context.js';

/** @internal Conformance cases of `oneTimeTokens.issue` and `oneTimeTokens.find`. */
export function tokenIssueCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const tokens = () => stores().oneTimeTokens;

  describe('oneTimeTokens.find', () => {
    it('finds a token by kind and hash until it expires, without consuming it', async () => {
      const owner = await seedUser();
      const token = oneTimeToken('email_verification', owner.tenantId, {
        userId: owner.id,
        email: owner.email,
        sessionId: '0192f1c4-5f3a-7c1e-9a4b-3d2f1e0c9b8a',
        expiresAt: at(60_000),
      });
      await tokens().issue(token);
      expect(await tokens().find('email_verification', token.tokenHash, at(0))).toEqual(token);
      expect(await tokens().find('email_verification', token.tokenHash, at(59_999))).toEqual(token);
      expect(await tokens().find('email_verification', token.tokenHash, at(60_000))).toBeNull();
      expect(await tokens().find('password_reset', token.tokenHash, at(0))).toBeNull();
      expect(await tokens().find('email_verification', 'f'.repeat(64), at(0))).toBeNull();
    });
  });

  describe('oneTimeTokens.issue', () => {
    it('replaces the older invitation of the same address, not those of other addresses', async () => {
      const owner = await seedUser();
      const first = oneTimeToken('invitation', owner.tenantId, { email: 'bob@example.com' });
      const someoneElse = oneTimeToken('invitation', owner.tenantId, { email: 'carol@example.com' });
      await tokens().issue(first);
      await tokens().issue(someoneElse);
      const second = oneTimeToken('invitation', owner.tenantId, { email: 'bob@example.com', role: 'admin' });
      await tokens().issue(second);
      expect(await tokens().find('invitation', first.tokenHash, at(0))).toBeNull();
      expect(await tokens().find('invitation', second.tokenHash, at(0))).toEqual(second);
      expect(await tokens().find('invitation', someoneElse.tokenHash, at(0))).toEqual(someoneElse);
    });

    it('replaces the older token of the same kind for the same user, not those of other kinds', async () => {
      const owner = await seedUser();
      const reset = oneTimeToken('password_reset', owner.tenantId, { userId: owner.id, email: owner.email });
      const verify = oneTimeToken('email_verification', owner.tenantId, {
        userId: owner.id,
        email: owner.email,
      });
      await tokens().issue(reset);
      await tokens().issue(verify);
      const newer = oneTimeToken('password_reset', owner.tenantId, { userId: owner.id, email: owner.email });
      await tokens().issue(newer);
      expect(await tokens().find('password_reset', reset.tokenHash, at(0))).toBeNull();
      expect(await tokens().find('password_reset', newer.tokenHash, at(0))).toEqual(newer);
      expect(await tokens().find('email_verification', verify.tokenHash, at(0))).toEqual(verify);
    });

    it('leaves one live token of a subject after concurrent issues, inside transactions or not', async () => {
      const owner = await seedUser();
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2
            ? tokens().issue(oneTimeToken('password_reset', owner.tenantId, { userId: owner.id }))
            : stores().transaction((tx) =>
                tx.oneTimeTokens.issue(oneTimeToken('password_reset', owner.tenantId, { userId: owner.id })),
              ),
        ),
      );
      expect(await tokens().listPending(owner.tenantId, 'password_reset', at(0))).toHaveLength(1);
      await Promise.all(
        Array.from({ length: 10 }, () =>
          tokens().issue(oneTimeToken('invitation', owner.tenantId, { email: 'same@example.com' })),
        ),
      );
      expect(await tokens().listPending(owner.tenantId, 'invitation', at(0))).toHaveLength(1);
    });

    it(
      inAnotherTenant("replaces nothing: not its invitation of the same address, nor its user's tokens"),
      async () => {
        const owner = await seedUser();
        const other = await seedUser();
        const elsewhere = oneTimeToken('invitation', other.tenantId, { email: 'bob@example.com' });
        const othersReset = oneTimeToken('password_reset', other.tenantId, {
          userId: other.id,
          email: other.email,
        });
        await tokens().issue(elsewhere);
        await tokens().issue(othersReset);
        await tokens().issue(oneTimeToken('invitation', owner.tenantId, { email: 'bob@example.com' }));
        await tokens().issue(oneTimeToken('password_reset', owner.tenantId, { userId: owner.id }));
        expect(await tokens().find('invitation', elsewhere.tokenHash, at(0))).toEqual(elsewhere);
        expect(await tokens().find('password_reset', othersReset.tokenHash, at(0))).toEqual(othersReset);
      },
    );
  });
}

/** @internal Conformance cases of `oneTimeTokens.consume`. */
export function tokenConsumeCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const tokens = () => stores().oneTimeTokens;

  describe('oneTimeTokens.consume', () => {
    it('consumes a token once: the first consume gets it, later ones and other kinds get nothing', async () => {
      const owner = await seedUser();
      const token = oneTimeToken('password_reset', owner.tenantId, { userId: owner.id, email: owner.email });
      await tokens().issue(token);
      expect(await tokens().consume('email_change', token.tokenHash, at(0))).toBeNull();
      expect(await tokens().consume('password_reset', token.tokenHash, at(0))).toEqual(token);
      expect(await tokens().consume('password_reset', token.tokenHash, at(0))).toBeNull();
      expect(await tokens().find('password_reset', token.tokenHash, at(0))).toBeNull();
    });

    it('does not hand out an expired token', async () => {
      const owner = await seedUser();
      const token = oneTimeToken('password_reset', owner.tenantId, {
        userId: owner.id,
        expiresAt: at(1_000),
      });
      await tokens().issue(token);
      expect(await tokens().consume('password_reset', token.tokenHash, at(1_000))).toBeNull();
    });

    it('gives a token to exactly one of 20 concurrent consumes', async () => {
      const owner = await seedUser();
      const token = oneTimeToken('invitation', owner.tenantId);
      await tokens().issue(token);
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          stores().transaction((tx) => tx.oneTimeTokens.consume('invitation', token.tokenHash, at(0))),
        ),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('keeps a token usable when the transaction that consumed it rolls back', async () => {
      const owner = await seedUser();
      const token = oneTimeToken('invitation', owner.tenantId);
      await tokens().issue(token);
      await expect(
        stores().transaction(async (tx) => {
          expect(await tx.oneTimeTokens.consume('invitation', token.tokenHash, at(0))).toEqual(token);
          throw new Rollback('email taken, say');
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await tokens().find('invitation', token.tokenHash, at(0))).toEqual(token);
    });
  });
}

/** @internal Conformance cases of the tenant's verbs of `oneTimeTokens`, and of its cleanup. */
export function tokenTenantCases({ test, stores, seedUser }: ConformanceContext): void {
  const { describe, it, expect } = test;
  const tokens = () => stores().oneTimeTokens;

  describe('oneTimeTokens.listPending', () => {
    it('lists the pending tokens of a kind in a tenant, newest first, without expired ones', async () => {
      const owner = await seedUser();
      const older = oneTimeToken('invitation', owner.tenantId, { createdAt: at(1), createdBy: owner.id });
      const newer = oneTimeToken('invitation', owner.tenantId, { createdAt: at(2), createdBy: owner.id });
      const expired = oneTimeToken('invitation', owner.tenantId, { expiresAt: at(10) });
      await tokens().issue(older);
      await tokens().issue(newer);
      await tokens().issue(expired);
      await tokens().issue(oneTimeToken('password_reset', owner.tenantId, { userId: owner.id }));
      expect(await tokens().listPending(owner.tenantId, 'invitation', at(10))).toEqual([newer, older]);
      expect(await tokens().listPending('not-a-uuid', 'invitation', at(10))).toEqual([]);
    });

    it(inAnotherTenant("lists that tenant's tokens only"), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      await tokens().issue(oneTimeToken('invitation', owner.tenantId, { createdBy: owner.id }));
      const theirs = oneTimeToken('invitation', other.tenantId);
      await tokens().issue(theirs);
      expect(await tokens().listPending(other.tenantId, 'invitation', at(10))).toHaveLength(1);
      expect(await tokens().listPending(other.tenantId, 'invitation', at(10))).toEqual([theirs]);
    });
  });

  describe('oneTimeTokens.revoke', () => {
    it('revokes one token by id, only of its kind', async () => {
      const owner = await seedUser();
      const token = oneTimeToken('invitation', owner.tenantId);
      await tokens().issue(token);
      expect(await tokens().revoke(owner.tenantId, 'password_reset', token.id)).toBe(false);
      expect(await tokens().find('invitation', token.tokenHash, at(0))).toEqual(token);
      expect(await tokens().revoke(owner.tenantId, 'invitation', token.id)).toBe(true);
      expect(await tokens().revoke(owner.tenantId, 'invitation', token.id)).toBe(false);
      expect(await tokens().find('invitation', token.tokenHash, at(0))).toBeNull();
      expect(await tokens().revoke(owner.tenantId, 'invitation', 'not-a-uuid')).toBe(false);
    });

    it(inAnotherTenant('false, and the token stays'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const token = oneTimeToken('invitation', owner.tenantId);
      await tokens().issue(token);
      expect(await tokens().revoke(other.tenantId, 'invitation', token.id)).toBe(false);
      expect(await tokens().find('invitation', token.tokenHash, at(0))).toEqual(token);
    });
  });

  describe('oneTimeTokens.revokeForUser', () => {
    it("revokes a user's tokens of one kind, not other kinds", async () => {
      const owner = await seedUser();
      const reset = oneTimeToken('password_reset', owner.tenantId, { userId: owner.id });
      const verify = oneTimeToken('email_verification', owner.tenantId, { userId: owner.id });
      await tokens().issue(reset);
      await tokens().issue(verify);
      expect(await tokens().revokeForUser(owner.tenantId, owner.id, 'password_reset')).toBe(1);
      expect(await tokens().find('password_reset', reset.tokenHash, at(0))).toBeNull();
      expect(await tokens().find('email_verification', verify.tokenHash, at(0))).toEqual(verify);
    });

    it(inAnotherTenant('revokes nothing, there or here'), async () => {
      const owner = await seedUser();
      const other = await seedUser();
      const reset = oneTimeToken('password_reset', owner.tenantId, { userId: owner.id });
      const othersReset = oneTimeToken('password_reset', other.tenantId, { userId: other.id });
      await tokens().issue(reset);
      await tokens().issue(othersReset);
      expect(await tokens().revokeForUser(other.tenantId, owner.id, 'password_reset')).toBe(0);
      expect(await tokens().find('password_reset', reset.tokenHash, at(0))).toEqual(reset);
      expect(await tokens().revokeForUser(owner.tenantId, owner.id, 'password_reset')).toBe(1);
      expect(await tokens().find('password_reset', othersReset.tokenHash, at(0))).toEqual(othersReset);
    });
  });

  describe('oneTimeTokens.deleteExpired', () => {
    it('deletes exactly the expired tokens, across tenants, in bounded batches', async () => {
      const owner = await seedUser();
      const other = await seedUser();
      for (let i = 0; i < 5; i++) {
        await tokens().issue(
          oneTimeToken('invitation', i % 2 ? owner.tenantId : other.tenantId, { expiresAt: at(i) }),
        );
      }
      const live = oneTimeToken('invitation', owner.tenantId, { expiresAt: at(100) });
      await tokens().issue(live);
      expect(await tokens().deleteExpired({ expiredBefore: at(50), batchSize: 2 })).toBe(2);
      expect(await tokens().deleteExpired({ expiredBefore: at(50), batchSize: 2 })).toBe(2);
      expect(await tokens().deleteExpired({ expiredBefore: at(50), batchSize: 2 })).toBe(1);
      expect(await tokens().deleteExpired({ expiredBefore: at(50), batchSize: 2 })).toBe(0);
      expect(await tokens().find('invitation', live.tokenHash, at(0))).toEqual(live);
    });
  });
}
