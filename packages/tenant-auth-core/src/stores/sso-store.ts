import type { Role } from '../members/roles.js';

/**
 * An email domain a tenant claims, as stored: verified once the tenant proved it controls the domain's
 * DNS (a TXT record holding the token). A domain is verified by at most one tenant.
 *
 * @example
 * const domain: DomainRecord | null = await stores.sso.findDomain(tenantId, 'example.com');
 */
export interface DomainRecord {
  tenantId: string;
  /** A lower-case host name, not a public suffix. */
  name: string;
  /** The random part of the TXT record's value (`tenant-auth-domain-verification=<token>`). */
  token: string;
  createdAt: Date;
  /** `null` until verified. */
  verifiedAt: Date | null;
}

/**
 * A tenant's OpenID Connect connection as stored (one per tenant); the client secret sealed, never in
 * clear.
 *
 * @example
 * const connection: SsoConnectionRecord | null = await stores.sso.findConnection(tenantId);
 */
export interface SsoConnectionRecord {
  tenantId: string;
  /** The issuer identifier (an https URL; http on loopback only for tests). */
  issuer: string;
  clientId: string;
  /** The client secret, sealed with a data key and bound to the tenant. */
  sealedClientSecret: string;
  /** Whether the tenant's users in its verified domains must sign in through SSO (owners excepted). */
  enforce: boolean;
  /** The role of a user created at their first SSO login. */
  defaultRole: Role;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A user's identity at an identity provider: `(issuer, subject)` names one user of one tenant, and a
 * user has at most one subject per issuer.
 *
 * @example
 * const identity: SsoIdentityRecord | null = await stores.sso.findIdentity(tenantId, issuer, sub);
 */
export interface SsoIdentityRecord {
  tenantId: string;
  userId: string;
  issuer: string;
  subject: string;
  createdAt: Date;
}

/**
 * Single sign-on: verified domains, the OpenID Connect connection and linked identities of each tenant.
 * Every method that takes a tenant is scoped to it: another tenant's rows are never returned, changed
 * or counted. A domain is verified by one tenant at most: `verifyDomain` has exactly one winner among
 * tenants verifying the same name concurrently (PostgreSQL: a unique index over verified names).
 *
 * @example
 * const verified = await stores.sso.findVerifiedDomain('example.com');
 */
export interface SsoStore {
  /**
   * Adds a domain to a tenant, unverified. Returns the tenant's record of that name: the new one, or the
   * one it already had (unchanged).
   */
  addDomain(domain: Omit<DomainRecord, 'verifiedAt'>): Promise<DomainRecord>;
  findDomain(tenantId: string, name: string): Promise<DomainRecord | null>;
  /** The tenant's domains, oldest first (ties by name). */
  listDomains(tenantId: string): Promise<DomainRecord[]>;
  /** The verified record of that name, whichever tenant holds it; `null` when none is verified. */
  findVerifiedDomain(name: string): Promise<DomainRecord | null>;
  /**
   * Marks the tenant's domain verified. Returns `'verified'` (by this call or before), `'taken'` (another
   * tenant holds it verified: nothing changes) or `'missing'` (the tenant has no such domain). Of
   * tenants racing to verify one name, exactly one gets `'verified'`.
   */
  verifyDomain(tenantId: string, name: string, at: Date): Promise<'verified' | 'taken' | 'missing'>;
  /** Deletes the tenant's domain. Returns whether it existed. */
  deleteDomain(tenantId: string, name: string): Promise<boolean>;
  /** Writes the tenant's connection, replacing the one it had. */
  saveConnection(connection: SsoConnectionRecord): Promise<void>;
  findConnection(tenantId: string): Promise<SsoConnectionRecord | null>;
  /** Deletes the tenant's connection. Returns whether it existed. */
  deleteConnection(tenantId: string): Promise<boolean>;
  /** The identity `(issuer, subject)` in that tenant. */
  findIdentity(tenantId: string, issuer: string, subject: string): Promise<SsoIdentityRecord | null>;
  /** The identity a user of that tenant has at that issuer. */
  findIdentityOfUser(tenantId: string, userId: string, issuer: string): Promise<SsoIdentityRecord | null>;
  /**
   * Links an identity to a user of the tenant. Returns `false` (and changes nothing) when the user does
   * not exist in that tenant, or the identity or the user's identity at that issuer exists already: of
   * concurrent links, one wins.
   */
  linkIdentity(identity: SsoIdentityRecord): Promise<boolean>;
}
