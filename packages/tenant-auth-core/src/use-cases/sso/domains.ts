import { actingUser, currentUser } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import { challengeName, challengeValue, checkedDomain } from '../../mechanisms/sso/domain-names.js';
import type { DomainResolver } from '../../ports/sso-ports.js';
import type { DomainRecord } from '../../ports/sso-store.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { errorOf, notFound, TenantAuthError } from '../../vocabulary/errors.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import { revokeHeldSessions } from './connection.js';
import type { Domain } from './sso-types.js';

const domainTaken = () => errorOf('domain_taken');

/** @internal A stored domain as the API shows it, with the TXT record that proves it. */
export const toDomain = (record: DomainRecord): Domain => ({
  name: record.name,
  verified: record.verifiedAt !== null,
  createdAt: record.createdAt,
  verifiedAt: record.verifiedAt,
  verification: { type: 'TXT', name: challengeName(record.name), value: challengeValue(record.token) },
});

/** Whether the TXT records of the challenge name hold the value (a record's strings joined, RFC 7208). */
async function holdsChallenge(resolver: DomainResolver | undefined, record: DomainRecord): Promise<boolean> {
  if (!resolver) return false;
  try {
    const records = await resolver.resolveTxt(challengeName(record.name));
    return records.some((chunks) => chunks.join('') === challengeValue(record.token));
  } catch {
    // No record (ENODATA, ENOTFOUND) or no answer: not verified (yet).
    return false;
  }
}

/**
 * @internal A tenant's email domains (docs/http-api.md, "Single sign-on (OpenID Connect) per tenant"): add, list, verify through a DNS TXT record, remove.
 * Changes need an owner with a recent authentication (`requireRecent`).
 */
export function createDomains(
  services: Services,
  resolver: DomainResolver | undefined,
  requireRecent: (claims: AccessClaims) => Promise<void>,
) {
  const { stores, clock, random, events } = services;
  const ownerOf = async (claims: AccessClaims) => {
    const user = await actingUser(stores, claims, clock.now(), 'owner');
    await requireRecent(claims);
    return user;
  };
  const parties = (user: UserRecord, claims: AccessClaims) => ({
    tenantId: user.tenantId,
    actorId: user.id,
    subjectId: null,
    sessionId: claims.sessionId,
  });

  async function addDomain(
    claims: AccessClaims,
    input: { domain: string },
    context: RequestContext = {},
  ): Promise<Domain> {
    const name = checkedDomain(input?.domain);
    const user = await ownerOf(claims);
    const holder = await stores.sso.findVerifiedDomain(name);
    if (holder && holder.tenantId !== user.tenantId) throw domainTaken();
    const token = Buffer.from(random(24)).toString('base64url');
    return events.transaction(async (tx, record) => {
      const existing = await tx.sso.findDomain(user.tenantId, name);
      if (existing) return toDomain(existing);
      const added = await tx.sso.addDomain({ tenantId: user.tenantId, name, token, createdAt: clock.now() });
      await record({ type: 'domain_added', ...events.base(parties(user, claims), context) });
      return toDomain(added);
    });
  }

  async function listDomains(claims: AccessClaims): Promise<Domain[]> {
    await currentUser(stores, claims, 'admin');
    return (await stores.sso.listDomains(claims.tenantId)).map(toDomain);
  }

  async function verifyDomain(
    claims: AccessClaims,
    name: string,
    context: RequestContext = {},
  ): Promise<Domain> {
    const user = await ownerOf(claims);
    const domain = typeof name === 'string' ? await stores.sso.findDomain(user.tenantId, name) : null;
    if (!domain) throw notFound();
    if (domain.verifiedAt !== null) return toDomain(domain);
    const holder = await stores.sso.findVerifiedDomain(domain.name);
    if (holder && holder.tenantId !== user.tenantId) throw domainTaken();
    if (!(await holdsChallenge(resolver, domain))) {
      throw new TenantAuthError(
        'domain_not_verified',
        `The TXT record ${challengeName(domain.name)} does not hold the expected value (yet).`,
      );
    }
    const verified = await events.transaction(async (tx, record) => {
      // The lock logins take to read the hold: none stores a session of a user this verification holds.
      if (!(await tx.tenants.lock(user.tenantId))) throw notFound();
      const outcome = await tx.sso.verifyDomain(user.tenantId, domain.name, clock.now());
      if (outcome === 'missing') throw notFound();
      if (outcome === 'taken') throw domainTaken();
      // Under `enforce`, the domain's users are held to SSO from now on: as when it is turned on, their
      // password and passkey sessions end.
      if ((await tx.sso.findConnection(user.tenantId))?.enforce)
        await revokeHeldSessions(tx, user.tenantId, clock.now());
      await record({ type: 'domain_verified', ...events.base(parties(user, claims), context) });
      const found = await tx.sso.findDomain(user.tenantId, domain.name);
      if (!found) throw notFound();
      return toDomain(found);
    });
    services.cache.forgetAll();
    return verified;
  }

  async function removeDomain(
    claims: AccessClaims,
    name: string,
    context: RequestContext = {},
  ): Promise<void> {
    const user = await ownerOf(claims);
    await events.transaction(async (tx, record) => {
      if (typeof name !== 'string' || !(await tx.sso.deleteDomain(user.tenantId, name))) throw notFound();
      await record({ type: 'domain_removed', ...events.base(parties(user, claims), context) });
    });
  }

  return { addDomain, listDomains, verifyDomain, removeDomain };
}
