import type { EntityManager } from '@mikro-orm/core';
import { isUuid } from 'tenant-auth-core';
import type { UserRecord, UserStore } from 'tenant-auth-core/store-kit';
import { tenantAuthUserSchema } from '../entities/user.js';
import { qualifiedTableName } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import { toUser, USER_COLUMNS, type UserRow } from './rows.js';
import { type SqlScope, selectRows } from './sql.js';

/**
 * @internal `UserStore` on MikroORM. Uniqueness of the email is decided by its unique constraint, so
 * concurrent registrations and email changes are safe; a violation becomes `email_taken`. Every change is
 * one `UPDATE` or `DELETE` scoped by tenant; deleting a user cascades (foreign keys) to its sessions and
 * the one-time tokens issued for it.
 */
export function mikroOrmUserStore(em: () => EntityManager, scope: () => SqlScope): UserStore {
  const update = async (
    tenantId: string,
    userId: string,
    changes: { passwordHash?: string; role?: UserRecord['role']; emailVerified?: boolean; email?: string },
  ): Promise<boolean> => {
    if (!isUuid(tenantId) || !isUuid(userId)) return false;
    try {
      return (await em().nativeUpdate(tenantAuthUserSchema, { id: userId, tenantId }, changes)) === 1;
    } catch (err) {
      throw toStoreError(err);
    }
  };

  return {
    async create(user: UserRecord) {
      try {
        await em().insert(tenantAuthUserSchema, {
          id: user.id,
          tenantId: user.tenantId,
          email: user.email,
          passwordHash: user.passwordHash,
          role: user.role,
          emailVerified: user.emailVerified,
          createdAt: user.createdAt,
        });
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async findByEmail(email) {
      const scoped = scope();
      try {
        const [row] = await selectRows<UserRow>(
          scoped,
          `select ${USER_COLUMNS} from ${qualifiedTableName(scoped.em, tenantAuthUserSchema)} where email = ?`,
          [email],
        );
        return row ? toUser(row) : null;
      } catch (err) {
        throw toStoreError(err);
      }
    },
    setPasswordHash: (tenantId, userId, passwordHash) => update(tenantId, userId, { passwordHash }),
    async findById(tenantId, userId) {
      if (!isUuid(tenantId) || !isUuid(userId)) return null;
      const scoped = scope();
      try {
        // On every role check: one statement, no unit of work.
        const [row] = await selectRows<UserRow>(
          scoped,
          `select ${USER_COLUMNS} from ${qualifiedTableName(scoped.em, tenantAuthUserSchema)} where id = ? and tenant_id = ?`,
          [userId, tenantId],
        );
        return row ? toUser(row) : null;
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async listByTenant(tenantId, options) {
      if (!isUuid(tenantId)) return [];
      try {
        const rows = await em().find(
          tenantAuthUserSchema,
          { tenantId },
          {
            disableIdentityMap: true,
            orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
            ...(options?.limit === undefined ? {} : { limit: options.limit }),
          },
        );
        return rows.map(toUser);
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async countByRole(tenantId, role) {
      if (!isUuid(tenantId)) return 0;
      try {
        return await em().count(tenantAuthUserSchema, { tenantId, role });
      } catch (err) {
        throw toStoreError(err);
      }
    },
    setRole: (tenantId, userId, role) => update(tenantId, userId, { role }),
    markEmailVerified: (tenantId, userId) => update(tenantId, userId, { emailVerified: true }),
    // A taken email violates the unique constraint: `email_taken`, and nothing changes.
    changeEmail: (tenantId, userId, email) => update(tenantId, userId, { email, emailVerified: true }),
    async delete(tenantId, userId) {
      if (!isUuid(tenantId) || !isUuid(userId)) return false;
      try {
        return (await em().nativeDelete(tenantAuthUserSchema, { id: userId, tenantId })) === 1;
      } catch (err) {
        throw toStoreError(err);
      }
    },
  };
}
