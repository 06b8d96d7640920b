import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../memory/memory-stores.js';
import type { TenantAuthStores, TransactionStores } from '../../ports/tenant-auth-stores.js';
import { owner, PASSWORD, setup, verify } from '../../testing/test-helpers.js';

describe('accepting an invitation (docs/http-api.md, "Roles and members")', () => {
  it("takes the tenant lock of role changes before it reads the inviter's role", async () => {
    const real = createMemoryStores();
    const calls: string[] = [];
    const stores: TenantAuthStores = {
      ...real,
      transaction: (fn) =>
        real.transaction((tx) => {
          const watched: TransactionStores = {
            ...tx,
            tenants: {
              ...tx.tenants,
              lock: (tenantId) => {
                calls.push(`lock ${tenantId}`);
                return tx.tenants.lock(tenantId);
              },
            },
            users: {
              ...tx.users,
              findById: (tenantId, userId) => {
                calls.push(`read ${userId}`);
                return tx.users.findById(tenantId, userId);
              },
            },
          };
          return fn(watched);
        }),
    };
    const t = setup({ stores });
    const ada = await owner(t.auth, 'ada@example.com');
    await verify(t, 'ada@example.com');
    await t.auth.createInvitation(ada.claims, { email: 'grace@example.com', role: 'admin' });
    await t.settle();
    calls.length = 0;
    await t.auth.acceptInvitation({
      token: t.inbox.token('grace@example.com', '/accept-invitation'),
      password: PASSWORD,
    });
    expect(calls.slice(0, 2)).toEqual([`lock ${ada.tenant.id}`, `read ${ada.user.id}`]);
  });
});
