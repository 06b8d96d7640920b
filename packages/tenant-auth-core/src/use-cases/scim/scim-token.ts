import { createHash } from 'node:crypto';
import { actingUser, assertUser, currentPrincipal } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { AccessClaims, Principal } from '../../vocabulary/claims.js';
import { invalidToken, notFound } from '../../vocabulary/errors.js';
import type { RequestContext } from '../../vocabulary/records.js';
import type { ScimClaims, ScimGroupRole, ScimSettings } from '../../vocabulary/scim.js';
import { parseGroupRoles, rederiveRoles } from './scim-roles.js';
import type { TenantAuthScim } from './scim-types.js';

/** `tas_` and 43 base64url characters: 256 random bits. */
const TOKEN_FORMAT = /^tas_[A-Za-z0-9_-]{43}$/;

/** A token's `lastUsedAt` is written at most this often. */
const TOUCH_INTERVAL_MS = 60_000;

/** @internal What is stored of a SCIM token: its SHA-256, lower-case hex. */
export const scimTokenHashOf = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

/** @internal The token and the group-to-role mapping (owners), and the verification of a directory's token. */
export function createScimConnection(
  services: Services,
): Pick<
  TenantAuthScim,
  'createScimToken' | 'getScimSettings' | 'revokeScimToken' | 'setScimGroupRoles' | 'verifyScimToken'
> {
  const { stores, clock, random, events, requireRecent } = services;

  /** An owner's change, under the tenant lock, with the owner re-read inside it. */
  async function asOwner<T>(
    claims: AccessClaims,
    fn: (
      tx: Parameters<Parameters<typeof events.transaction>[0]>[0],
      record: Parameters<Parameters<typeof events.transaction>[0]>[1],
      who: { tenantId: string; actorId: string; sessionId: string },
    ) => Promise<T>,
  ): Promise<T> {
    assertUser(claims);
    await requireRecent(claims);
    await actingUser(stores, claims, clock.now(), 'owner');
    return events.transaction(async (tx, record) => {
      await tx.tenants.lock(claims.tenantId);
      const owner = await actingUser(tx, claims, clock.now(), 'owner');
      return fn(tx, record, { tenantId: owner.tenantId, actorId: owner.id, sessionId: claims.sessionId });
    });
  }

  return {
    async createScimToken(claims: AccessClaims, context: RequestContext = {}) {
      return asOwner(claims, async (tx, record, who) => {
        const token = `tas_${Buffer.from(random(32)).toString('base64url')}`;
        const createdAt = clock.now();
        // One token per tenant: saving it replaces the previous one, which stops at once.
        await tx.scim.saveToken({
          tenantId: who.tenantId,
          tokenHash: scimTokenHashOf(token),
          createdAt,
          lastUsedAt: null,
        });
        await record({ type: 'scim_token_created', ...events.base({ ...who, subjectId: null }, context) });
        return { token, createdAt };
      });
    },

    async revokeScimToken(claims: AccessClaims, context: RequestContext = {}) {
      await asOwner(claims, async (tx, record, who) => {
        if (!(await tx.scim.deleteToken(who.tenantId))) throw notFound();
        await record({ type: 'scim_token_revoked', ...events.base({ ...who, subjectId: null }, context) });
      });
    },

    async getScimSettings(principal: Principal): Promise<ScimSettings> {
      const caller = await currentPrincipal(stores, principal, clock.now(), 'admin');
      const token = await stores.scim.findToken(caller.tenantId);
      return {
        enabled: token !== null,
        createdAt: token?.createdAt ?? null,
        lastUsedAt: token?.lastUsedAt ?? null,
        groupRoles: await stores.scim.getGroupRoles(caller.tenantId),
      };
    },

    async setScimGroupRoles(
      claims: AccessClaims,
      input: { groupRoles: ScimGroupRole[] },
      context: RequestContext = {},
    ): Promise<ScimGroupRole[]> {
      const groupRoles = parseGroupRoles(input);
      return asOwner(claims, async (tx, record, who) => {
        await tx.scim.setGroupRoles(who.tenantId, groupRoles);
        // Every managed user's role follows the new mapping, in this transaction.
        await rederiveRoles(tx, events, record, {
          tenantId: who.tenantId,
          userIds: await tx.scim.listManagedUserIds(who.tenantId),
          actor: { actorType: 'user', actorId: who.actorId, sessionId: who.sessionId },
          context,
        });
        return groupRoles;
      });
    },

    async verifyScimToken(token: string): Promise<ScimClaims> {
      if (typeof token !== 'string' || !TOKEN_FORMAT.test(token)) throw invalidToken();
      const tokenHash = scimTokenHashOf(token);
      const found = await stores.scim.findTokenByHash(tokenHash);
      if (!found) throw invalidToken();
      const now = clock.now();
      if (found.lastUsedAt === null || now.getTime() - found.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) {
        // Only the current token is touched: one replaced meanwhile stays as it is.
        await stores.scim.touchToken(found.tenantId, tokenHash, now);
      }
      return { actorType: 'scim', tenantId: found.tenantId, tokenHash };
    },
  };
}
