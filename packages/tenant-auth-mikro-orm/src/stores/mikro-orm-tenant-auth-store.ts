import type { EntityManager } from '@mikro-orm/core';
import type { Tenant, TenantAuthStore, User } from 'tenant-auth-core';
import { TenantAuthTenant } from '../entities/tenant.js';
import { TenantAuthUser } from '../entities/user.js';
import { type EntityManagerSource, rootEntityManager } from '../entity-manager-source.js';
import { toStoreError } from '../to-store-error.js';
import { isUuid } from '../uuid.js';

interface UserRow {
  id: string;
  tenantId: string;
  email: string;
  passwordHash: string;
  createdAt: Date;
}

interface TenantRow {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
}

const toUser = (row: UserRow): User => ({
  id: row.id,
  tenantId: row.tenantId,
  email: row.email,
  passwordHash: row.passwordHash,
  createdAt: new Date(row.createdAt),
});

const toTenant = (row: TenantRow): Tenant => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  createdAt: new Date(row.createdAt),
});

/**
 * `TenantAuthStore` on MikroORM (PostgreSQL or PGlite). Registration runs in one transaction: the owner
 * row is written first and the tenant second (the user-to-tenant foreign key is checked at commit), so a
 * taken email is reported as `email_taken` even when the slug is taken too, and a failure leaves no row.
 * Uniqueness is decided by the database's unique constraints, so concurrent registrations are safe.
 *
 * @example
 * const store = new MikroOrmTenantAuthStore(orm);
 * await store.createTenantWithOwner({ tenant, user });
 * const user = await store.findUserByEmail('ada@example.com');
 */
export class MikroOrmTenantAuthStore implements TenantAuthStore {
  readonly #root: EntityManager;

  constructor(source: EntityManagerSource) {
    this.#root = rootEntityManager(source);
  }

  #em(): EntityManager {
    return this.#root.fork();
  }

  async createTenantWithOwner(input: {
    tenant: Tenant;
    user: User;
  }): Promise<{ tenant: Tenant; user: User }> {
    const { tenant, user } = input;
    if (user.tenantId !== tenant.id) throw new TypeError('the owner must belong to the new tenant');
    try {
      await this.#em().transactional(async (em) => {
        await em.insert(TenantAuthUser, {
          id: user.id,
          tenantId: tenant.id,
          email: user.email,
          passwordHash: user.passwordHash,
          createdAt: user.createdAt,
        });
        await em.insert(TenantAuthTenant, {
          id: tenant.id,
          slug: tenant.slug,
          name: tenant.name,
          createdAt: tenant.createdAt,
        });
      });
    } catch (err) {
      throw toStoreError(err);
    }
    return { tenant: toTenant(tenant), user: toUser(user) };
  }

  async findUserByEmail(email: string): Promise<User | null> {
    try {
      const row = await this.#em().findOne(
        TenantAuthUser,
        { email: email.toLowerCase() },
        { disableIdentityMap: true },
      );
      return row ? toUser(row) : null;
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async findUserById(tenantId: string, userId: string): Promise<User | null> {
    if (!isUuid(tenantId) || !isUuid(userId)) return null;
    try {
      const row = await this.#em().findOne(
        TenantAuthUser,
        { id: userId, tenantId },
        { disableIdentityMap: true },
      );
      return row ? toUser(row) : null;
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async findTenantById(tenantId: string): Promise<Tenant | null> {
    if (!isUuid(tenantId)) return null;
    try {
      const row = await this.#em().findOne(TenantAuthTenant, { id: tenantId }, { disableIdentityMap: true });
      return row ? toTenant(row) : null;
    } catch (err) {
      throw toStoreError(err);
    }
  }
}
