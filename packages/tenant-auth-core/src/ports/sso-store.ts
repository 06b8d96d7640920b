import type { Role } from '../vocabulary/roles.js';
import type { SealedValuePage } from './sealed-value-page.js';
import type { SsoSettings } from './sso-ports.js';

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
 * A tenant's SSO connection as stored (one per tenant), whatever its protocol: the `protocol` names the
 * identity provider that reads it, `settings` hold that protocol's own fields, and a secret (OpenID
 * Connect's client secret) is sealed, never in clear. A new protocol needs no new column.
 *
 * @example
 * const connection: SsoConnectionRecord | null = await stores.sso.findConnection(tenantId);
 */
export interface SsoConnectionRecord {
  tenantId: string;
  /** The protocol of the connection (`oidc`, `saml`): a key of `sso.providers`. */
  protocol: string;
  /** What names the connection's identities: the OpenID Connect issuer, the SAML IdP's entity ID. */
  issuer: string;
  /** The protocol's own settings, as its provider configured them (JSON; never a secret). */
  settings: SsoSettings;
  /** The protocol's secret (OpenID Connect: the client secret), sealed with a data key and bound to the tenant; `null` when it has none. */
  sealedSecret: string | null;
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
 * What {@link SsoStore.useOnce} marks used: an `id` of a `kind` in a tenant. `state`: the `state` of a
 * finished SSO sign-in (its `sso_state` cannot finish another); `assertion`: a SAML assertion's `ID`
 * (no replay).
 *
 * @example
 * const key: SsoUseOnceKey = { tenantId, kind: 'state', id: state };
 */
export interface SsoUseOnceKey {
  tenantId: string;
  kind: 'state' | 'assertion';
  id: string;
}

/**
 * Single sign-on: verified domains, the connection and linked identities of each tenant.
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
  /** Writes the tenant's connection, replacing the one it had (whatever its protocol was). */
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
  /**
   * Optional (the re-seal after a data-key rotation needs it): the connections' sealed secrets, those
   * that have one, by tenant id (the page's key).
   *
   * @example
   * const page = await stores.sso.listSealedSecrets?.({ after: null, limit: 500 });
   */
  listSealedSecrets?(page: SealedValuePage): Promise<{ tenantId: string; sealedSecret: string }[]>;
  /**
   * Optional, with {@link SsoStore.listSealedSecrets}: replaces the tenant's connection's sealed secret
   * with `sealedSecret` only if it is still `expected` (compare-and-set: a connection saved again meanwhile
   * is left alone), changing nothing else. Returns whether it did.
   *
   * @example
   * await stores.sso.resealSecret?.(tenantId, old, resealed);
   */
  resealSecret?(tenantId: string, expected: string, sealedSecret: string): Promise<boolean>;
  /**
   * Marks `key` used until `expiresAt`: `true` the first time, `false` when it is marked already (of
   * concurrent calls with one key, exactly one gets `true`). Keys of different tenants or kinds never
   * meet. Stores keep a hash of `id` only. Optional: without it the `sso_state` of a finished sign-in is
   * not refused a second time (the provider's code is single-use still); a SAML provider needs it.
   */
  useOnce?(key: SsoUseOnceKey, expiresAt: Date): Promise<boolean>;
  /** Deletes up to `batchSize` marks of {@link SsoStore.useOnce} that expired before `expiredBefore`: how many. */
  deleteExpiredUsedOnce?(options: { expiredBefore: Date; batchSize: number }): Promise<number>;
}
