import { TenantAuthError } from '../errors.js';
import type { Session, Tenant, User } from '../types.js';
import type { SessionRotation, SessionStore, TenantAuthStore } from './types.js';

const copy = <T>(value: T): T => structuredClone(value);

/**
 * In-memory `TenantAuthStore` with a database's guarantees: `createTenantWithOwner` is atomic (checks
 * and inserts happen in one synchronous step), emails and slugs are unique. Values are copied in and
 * out, as a database would. For tests and single-process demos; data is lost on exit.
 *
 * @example
 * const auth = createTenantAuth({ store: new MemoryTenantAuthStore(), sessionStore: new MemorySessionStore(), ... });
 */
export class MemoryTenantAuthStore implements TenantAuthStore {
  readonly #tenants = new Map<string, Tenant>();
  readonly #users = new Map<string, User>();
  readonly #userIdByEmail = new Map<string, string>();
  readonly #tenantIdBySlug = new Map<string, string>();

  async createTenantWithOwner(input: {
    tenant: Tenant;
    user: User;
  }): Promise<{ tenant: Tenant; user: User }> {
    const { tenant, user } = input;
    if (user.tenantId !== tenant.id) throw new TypeError('the owner must belong to the new tenant');
    const email = user.email.toLowerCase();
    // No await between the checks and the writes: nothing can interleave, as in one transaction.
    if (this.#userIdByEmail.has(email))
      throw new TenantAuthError('email_taken', 'The email is already registered.');
    if (this.#tenantIdBySlug.has(tenant.slug))
      throw new TenantAuthError('slug_taken', 'The slug is already taken.');
    if (this.#tenants.has(tenant.id) || this.#users.has(user.id)) throw new TypeError('duplicate id');
    this.#tenants.set(tenant.id, copy(tenant));
    this.#tenantIdBySlug.set(tenant.slug, tenant.id);
    this.#users.set(user.id, copy(user));
    this.#userIdByEmail.set(email, user.id);
    return { tenant: copy(tenant), user: copy(user) };
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const id = this.#userIdByEmail.get(email.toLowerCase());
    const user = id === undefined ? undefined : this.#users.get(id);
    return user ? copy(user) : null;
  }

  async findUserById(tenantId: string, userId: string): Promise<User | null> {
    const user = this.#users.get(userId);
    return user && user.tenantId === tenantId ? copy(user) : null;
  }

  async findTenantById(tenantId: string): Promise<Tenant | null> {
    const tenant = this.#tenants.get(tenantId);
    return tenant ? copy(tenant) : null;
  }
}

/**
 * In-memory `SessionStore`: compare-and-set rotation, tenant-scoped reads, batched cleanup.
 *
 * @example
 * const sessions = new MemorySessionStore();
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Session>();

  #get(tenantId: string, sessionId: string): Session | undefined {
    const s = this.#sessions.get(sessionId);
    return s && s.tenantId === tenantId ? s : undefined;
  }

  async create(session: Session): Promise<Session> {
    if (this.#sessions.has(session.id)) throw new TypeError('duplicate session id');
    this.#sessions.set(session.id, copy(session));
    return copy(session);
  }

  async findById(tenantId: string, sessionId: string): Promise<Session | null> {
    const s = this.#get(tenantId, sessionId);
    return s ? copy(s) : null;
  }

  async findByRefreshHash(tenantId: string, refreshHash: string): Promise<Session | null> {
    for (const s of this.#sessions.values()) {
      if (
        s.tenantId === tenantId &&
        (s.refreshHash === refreshHash || s.previousRefreshHash === refreshHash)
      ) {
        return copy(s);
      }
    }
    return null;
  }

  async rotate(
    tenantId: string,
    sessionId: string,
    expectedRefreshHash: string,
    next: SessionRotation,
  ): Promise<boolean> {
    const s = this.#get(tenantId, sessionId);
    if (!s || s.revokedAt !== null || s.refreshHash !== expectedRefreshHash) return false;
    this.#sessions.set(sessionId, { ...s, ...copy(next), previousRefreshHash: s.refreshHash });
    return true;
  }

  async revoke(
    tenantId: string,
    sessionId: string,
    at: Date,
    options: { userId?: string } = {},
  ): Promise<boolean> {
    const s = this.#get(tenantId, sessionId);
    if (!s || s.revokedAt !== null) return false;
    if (options.userId !== undefined && s.userId !== options.userId) return false;
    s.revokedAt = new Date(at);
    return true;
  }

  async revokeAllForUser(
    tenantId: string,
    userId: string,
    at: Date,
    options: { exceptSessionId?: string } = {},
  ): Promise<number> {
    let count = 0;
    for (const s of this.#sessions.values()) {
      if (
        s.tenantId === tenantId &&
        s.userId === userId &&
        s.revokedAt === null &&
        s.id !== options.exceptSessionId
      ) {
        s.revokedAt = new Date(at);
        count++;
      }
    }
    return count;
  }

  async listActiveForUser(tenantId: string, userId: string, now: Date): Promise<Session[]> {
    return [...this.#sessions.values()]
      .filter(
        (s) => s.tenantId === tenantId && s.userId === userId && s.revokedAt === null && s.expiresAt > now,
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .map(copy);
  }

  async deleteExpired(options: {
    expiredBefore: Date;
    revokedBefore: Date;
    batchSize: number;
  }): Promise<number> {
    const { expiredBefore, revokedBefore, batchSize } = options;
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new TypeError('batchSize must be a positive integer');
    const doomed = [...this.#sessions.values()]
      .filter((s) => s.expiresAt < expiredBefore || (s.revokedAt !== null && s.revokedAt < revokedBefore))
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : 1))
      .slice(0, batchSize);
    for (const s of doomed) this.#sessions.delete(s.id);
    return doomed.length;
  }
}
