import { actingUser, currentUser } from '../../mechanisms/authorization.js';
import { SSO_SECRET_PURPOSE } from '../../mechanisms/sealing/stored-values.js';
import type { Services } from '../../mechanisms/services.js';
import {
  type ConnectionTrust,
  checkedTrust,
  TRUST_FIELDS,
  trustOf,
} from '../../mechanisms/sso/connection-trust.js';
import { domainOf } from '../../mechanisms/sso/domain-names.js';
import { revokeSessionsSsoDidNotMake } from '../../mechanisms/sso/sso-hold.js';
import type { IdentityProvider } from '../../ports/sso-ports.js';
import type { SsoConnectionRecord, SsoStore } from '../../ports/sso-store.js';
import type { CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { AccessClaims } from '../../vocabulary/claims.js';
import { type FieldError, notFound, validationError } from '../../vocabulary/errors.js';
import type { RequestContext, UserRecord } from '../../vocabulary/records.js';
import { isRole, type Role } from '../../vocabulary/roles.js';
import { DEFAULT_PROTOCOL, describeConnection, providerFor } from './providers.js';
import type { ResolvedSso } from './sso-options.js';
import type { ConfigureSsoInput, SsoConnection } from './sso-types.js';

/** The fields core reads itself; the rest of the input is the protocol's. */
const COMMON_FIELDS = new Set<string>(['protocol', 'enforce', 'defaultRole', ...TRUST_FIELDS]);

interface CheckedInput {
  provider: IdentityProvider;
  /** The protocol's own fields, for its provider. */
  fields: Record<string, unknown>;
  enforce: boolean;
  defaultRole: Exclude<Role, 'owner'>;
  trust: ConnectionTrust;
}

/** The input's protocol, the provider's checks of its fields, then `enforce` and `defaultRole`. */
function checkedInput(sso: ResolvedSso, input: ConfigureSsoInput): CheckedInput {
  const errors: FieldError[] = [];
  const given = typeof input === 'object' && input !== null ? input : {};
  const protocol = given.protocol ?? DEFAULT_PROTOCOL;
  const provider = typeof protocol === 'string' ? providerFor(sso, protocol) : undefined;
  const fields = Object.fromEntries(Object.entries(given).filter(([key]) => !COMMON_FIELDS.has(key)));
  if (!provider) {
    const offered = [...sso.providers.keys()].join(', ');
    errors.push({
      field: 'protocol',
      code: 'invalid_value',
      message: `The protocol must be one this server offers (${offered}).`,
    });
  } else errors.push(...provider.checkInput(fields));
  const enforce = given.enforce ?? false;
  if (typeof enforce !== 'boolean')
    errors.push({ field: 'enforce', code: 'invalid_type', message: 'enforce must be a boolean.' });
  const defaultRole: unknown = given.defaultRole ?? 'member';
  if (!isRole(defaultRole) || defaultRole === 'owner')
    errors.push({ field: 'defaultRole', code: 'invalid_role', message: 'The role must be admin or member.' });
  const trust = checkedTrust(given, errors);
  if (errors.length > 0 || !provider) throw validationError(errors);
  return {
    provider,
    fields,
    enforce: enforce as boolean,
    defaultRole: defaultRole as Exclude<Role, 'owner'>,
    trust,
  };
}

/** @internal The connection as an owner or admin sees it. */
export const toSsoConnection = (
  sso: ResolvedSso | undefined,
  record: SsoConnectionRecord,
): SsoConnection => ({
  ...describeConnection(sso, record),
  protocol: record.protocol,
  enforce: record.enforce,
  defaultRole: record.defaultRole,
  ...trustOf(record.settings),
  updatedAt: record.updatedAt,
});

/**
 * @internal Turning `enforce` on (or verifying a domain while it is on): every session of the users it holds (not owners, addresses in a
 * verified domain of the tenant) that SSO did not make is revoked. Returns how many.
 */
export async function revokeHeldSessions(
  tx: CompleteTransactionStores & { sso: SsoStore },
  tenantId: string,
  now: Date,
): Promise<number> {
  const verified = new Set(
    (await tx.sso.listDomains(tenantId)).filter((d) => d.verifiedAt !== null).map((d) => d.name),
  );
  if (verified.size === 0) return 0;
  // In the store (one statement in SQL): a large tenant is not read into memory under its lock.
  if (tx.sessions.revokeHeldBySso) return tx.sessions.revokeHeldBySso(tenantId, [...verified], now);
  let revoked = 0;
  for (const user of await tx.users.listByTenant(tenantId)) {
    if (user.role === 'owner' || !verified.has(domainOf(user.email) ?? '')) continue;
    revoked += await revokeSessionsSsoDidNotMake(tx, user, now);
  }
  return revoked;
}

/**
 * @internal The tenant's SSO connection (`docs/http-api.md`, "Single sign-on (OpenID Connect) per
 * tenant"), whatever its protocol: configure, read, remove.
 */
export function createSsoConnection(
  services: Services,
  sso: ResolvedSso | undefined,
  requireRecent: (claims: AccessClaims) => Promise<void>,
  unavailable: () => Error,
) {
  const { stores, clock, events, sealer, logger } = services;
  const parties = (user: UserRecord, claims: AccessClaims) => ({
    tenantId: user.tenantId,
    actorId: user.id,
    subjectId: null,
    sessionId: claims.sessionId,
  });

  /** The provider's configuration of the input; its field errors (a discovery that failed) refused. */
  async function configured(checked: CheckedInput, tenantId: string) {
    const { provider } = checked;
    const result = await provider
      .configure(checked.fields)
      .catch((err: unknown) => ({ ok: false as const, errors: [], detail: String(err) }));
    if (result.ok) return result;
    logger.warn(
      { protocol: provider.protocol, detail: result.detail, tenantId },
      'tenant-auth: SSO connection refused by its provider',
    );
    throw validationError(
      result.errors.length > 0
        ? result.errors
        : [{ field: 'protocol', code: 'invalid_value', message: 'The provider refused the connection.' }],
    );
  }

  async function configureSso(
    claims: AccessClaims,
    input: ConfigureSsoInput,
    context: RequestContext = {},
  ): Promise<SsoConnection> {
    if (!sso) throw unavailable();
    const checked = checkedInput(sso, input);
    const user = await actingUser(stores, claims, clock.now(), 'owner');
    await requireRecent(claims);
    const { issuer, settings, secret } = await configured(checked, user.tenantId);
    const now = clock.now();
    const saved = await events.transaction(async (tx, record) => {
      if (!(await tx.tenants.lock(user.tenantId))) throw notFound();
      const before = await tx.sso.findConnection(user.tenantId);
      const connection: SsoConnectionRecord = {
        tenantId: user.tenantId,
        protocol: checked.provider.protocol,
        issuer,
        // Core's trust fields live beside the protocol's own settings (one JSON column).
        settings: { ...settings, ...checked.trust },
        sealedSecret:
          secret === null
            ? null
            : sealer.seal(Buffer.from(secret, 'utf8'), SSO_SECRET_PURPOSE, user.tenantId),
        enforce: checked.enforce,
        defaultRole: checked.defaultRole,
        createdAt: before?.createdAt ?? now,
        updatedAt: now,
      };
      await tx.sso.saveConnection(connection);
      if (connection.enforce && !before?.enforce) await revokeHeldSessions(tx, user.tenantId, now);
      await record({ type: 'sso_configured', ...events.base(parties(user, claims), context) });
      return connection;
    });
    if (saved.enforce) services.cache.forgetAll();
    return toSsoConnection(sso, saved);
  }

  async function getSso(claims: AccessClaims): Promise<SsoConnection | null> {
    await currentUser(stores, claims, 'admin');
    const connection = await stores.sso.findConnection(claims.tenantId);
    return connection && toSsoConnection(sso, connection);
  }

  async function removeSso(claims: AccessClaims, context: RequestContext = {}): Promise<void> {
    const user = await actingUser(stores, claims, clock.now(), 'owner');
    await requireRecent(claims);
    await events.transaction(async (tx, record) => {
      if (!(await tx.sso.deleteConnection(user.tenantId))) throw notFound();
      await record({ type: 'sso_removed', ...events.base(parties(user, claims), context) });
    });
  }

  return { configureSso, getSso, removeSso };
}
