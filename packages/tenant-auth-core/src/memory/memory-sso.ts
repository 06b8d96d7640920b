import { createHash } from 'node:crypto';
import type { SsoStore, SsoUseOnceKey } from '../ports/sso-store.js';
import { copy, copyOrNull, pageOf, type Run } from './memory-run.js';

const domainKey = (tenantId: string, name: string) => `${tenantId}|${name}`;
const usedOnceKey = (key: SsoUseOnceKey) =>
  `${key.tenantId}|${key.kind}|${createHash('sha256').update(key.id, 'utf8').digest('hex')}`;
const identityKey = (tenantId: string, issuer: string, subject: string) => `${tenantId}|${issuer}|${subject}`;

/** @internal The SSO store on the memory database: each verb runs alone, so each is atomic. */
export function memorySsoStore(run: Run): SsoStore {
  return {
    addDomain: (domain) =>
      run((s) => {
        const key = domainKey(domain.tenantId, domain.name);
        const existing = s.domains.get(key);
        if (existing) return copy(existing);
        const record = { ...copy(domain), verifiedAt: null };
        s.domains.set(key, record);
        return copy(record);
      }),
    findDomain: (tenantId, name) => run((s) => copyOrNull(s.domains.get(domainKey(tenantId, name)))),
    listDomains: (tenantId) =>
      run((s) =>
        [...s.domains.values()]
          .filter((d) => d.tenantId === tenantId)
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.name < b.name ? -1 : 1))
          .map(copy),
      ),
    findVerifiedDomain: (name) =>
      run((s) => copyOrNull([...s.domains.values()].find((d) => d.name === name && d.verifiedAt !== null))),
    verifyDomain: (tenantId, name, at) =>
      run((s) => {
        const domain = s.domains.get(domainKey(tenantId, name));
        if (!domain) return 'missing';
        if (domain.verifiedAt !== null) return 'verified';
        const holder = [...s.domains.values()].find((d) => d.name === name && d.verifiedAt !== null);
        if (holder) return 'taken';
        s.domains.set(domainKey(tenantId, name), { ...domain, verifiedAt: new Date(at) });
        return 'verified';
      }),
    deleteDomain: (tenantId, name) => run((s) => s.domains.delete(domainKey(tenantId, name))),
    saveConnection: (connection) =>
      run((s) => {
        if (!s.tenants.has(connection.tenantId)) return;
        s.ssoConnections.set(connection.tenantId, copy(connection));
      }),
    findConnection: (tenantId) => run((s) => copyOrNull(s.ssoConnections.get(tenantId))),
    deleteConnection: (tenantId) => run((s) => s.ssoConnections.delete(tenantId)),
    listSealedSecrets: (page) =>
      run((s) =>
        pageOf(
          [...s.ssoConnections.values()].flatMap(({ tenantId, sealedSecret }) =>
            sealedSecret === null ? [] : [{ tenantId, sealedSecret }],
          ),
          (c) => c.tenantId,
          page,
        ),
      ),
    resealSecret: (tenantId, expected, sealedSecret) =>
      run((s) => {
        const connection = s.ssoConnections.get(tenantId);
        if (connection?.sealedSecret !== expected) return false;
        s.ssoConnections.set(tenantId, { ...connection, sealedSecret });
        return true;
      }),
    findIdentity: (tenantId, issuer, subject) =>
      run((s) => copyOrNull(s.ssoIdentities.get(identityKey(tenantId, issuer, subject)))),
    findIdentityOfUser: (tenantId, userId, issuer) =>
      run((s) =>
        copyOrNull(
          [...s.ssoIdentities.values()].find(
            (i) => i.tenantId === tenantId && i.userId === userId && i.issuer === issuer,
          ),
        ),
      ),
    linkIdentity: (identity) =>
      run((s) => {
        const { tenantId, userId, issuer, subject } = identity;
        if (s.users.get(userId)?.tenantId !== tenantId) return false;
        const key = identityKey(tenantId, issuer, subject);
        if (s.ssoIdentities.has(key)) return false;
        for (const i of s.ssoIdentities.values()) {
          if (i.tenantId === tenantId && i.userId === userId && i.issuer === issuer) return false;
        }
        s.ssoIdentities.set(key, copy(identity));
        return true;
      }),
    useOnce: (key, expiresAt) =>
      run((s) => {
        const mark = usedOnceKey(key);
        const held = s.ssoUsedOnce.get(mark);
        // An expired mark that cleanup has not deleted yet still counts: the key was used.
        if (held) return false;
        s.ssoUsedOnce.set(mark, new Date(expiresAt));
        return true;
      }),
    deleteExpiredUsedOnce: ({ expiredBefore, batchSize }) =>
      run((s) => {
        let deleted = 0;
        for (const [mark, expiresAt] of s.ssoUsedOnce) {
          if (deleted >= batchSize) break;
          if (expiresAt < expiredBefore && s.ssoUsedOnce.delete(mark)) deleted += 1;
        }
        return deleted;
      }),
  };
}
