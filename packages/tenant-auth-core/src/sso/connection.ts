import { actingUser, currentUser } from '../authorization.js';
import type { AccessClaims } from '../claims.js';
import { type FieldError, notFound, validationError } from '../errors.js';
import { isRole, type Role } from '../members/roles.js';
import type { RequestContext, UserRecord } from '../records.js';
import type { Services } from '../services.js';
import type { SsoConnectionRecord, SsoStore } from '../stores/sso-store.js';
import type { TransactionStores } from '../stores/tenant-auth-stores.js';
import { domainOf } from './domain-names.js';
import type { IdentityProvider } from './sso-ports.js';
import type { ConfigureSsoInput, SsoConnection, SsoOptions } from './sso-types.js';

/** @internal The purpose client secrets are sealed for (bound to the tenant). */
export const CLIENT_SECRET_PURPOSE = 'sso-client-secret';

const FIELD_MAX = 2048;

function text(value: unknown, field: string, errors: FieldError[]): string {
  if (value === undefined || value === null || value === '') {
    errors.push({ field, code: 'required', message: `${field} is required.` });
  } else if (typeof value !== 'string') {
    errors.push({ field, code: 'invalid_type', message: `${field} must be a string.` });
  } else if (value.length > FIELD_MAX) {
    errors.push({
      field,
      code: 'too_long',
      message: `${field} must be at most ${FIELD_MAX} characters long.`,
    });
  } else return value;
  return '';
}

/** An https URL without query or fragment (http only on a loopback host, for tests and development). */
function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'The issuer must be an absolute URL.';
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return 'The issuer must be an https URL.';
  if (url.search || url.hash || url.username || url.password)
    return 'The issuer must have no query, fragment or credentials.';
  return undefined;
}

function checkedInput(input: ConfigureSsoInput): Required<ConfigureSsoInput> {
  const errors: FieldError[] = [];
  const issuer = text(input?.issuer, 'issuer', errors);
  const clientId = text(input?.clientId, 'clientId', errors);
  const clientSecret = text(input?.clientSecret, 'clientSecret', errors);
  const problem = issuer ? issuerProblem(issuer) : undefined;
  if (problem) errors.push({ field: 'issuer', code: 'invalid_value', message: problem });
  const enforce = input?.enforce ?? false;
  if (typeof enforce !== 'boolean')
    errors.push({ field: 'enforce', code: 'invalid_type', message: 'enforce must be a boolean.' });
  const defaultRole: unknown = input?.defaultRole ?? 'member';
  if (!isRole(defaultRole) || defaultRole === 'owner')
    errors.push({ field: 'defaultRole', code: 'invalid_role', message: 'The role must be admin or member.' });
  if (errors.length > 0) throw validationError(errors);
  return { issuer, clientId, clientSecret, enforce, defaultRole: defaultRole as Exclude<Role, 'owner'> };
}

/** @internal The connection as an owner or admin sees it. */
export const toSsoConnection = (record: SsoConnectionRecord, redirectUri: string): SsoConnection => ({
  issuer: record.issuer,
  clientId: record.clientId,
  enforce: record.enforce,
  defaultRole: record.defaultRole,
  redirectUri,
  updatedAt: record.updatedAt,
});

/**
 * @internal Turning `enforce` on (or verifying a domain while it is on): every session of the users it holds (not owners, addresses in a
 * verified domain of the tenant) that SSO did not make is revoked. Returns how many.
 */
export async function revokeHeldSessions(
  tx: TransactionStores & { sso: SsoStore },
  tenantId: string,
  now: Date,
): Promise<number> {
  const verified = new Set(
    (await tx.sso.listDomains(tenantId)).filter((d) => d.verifiedAt !== null).map((d) => d.name),
  );
  let revoked = 0;
  for (const user of await tx.users.listByTenant(tenantId)) {
    if (user.role === 'owner' || !verified.has(domainOf(user.email) ?? '')) continue;
    for (const session of await tx.sessions.listActiveForUser(tenantId, user.id, now)) {
      if (session.amr.includes('sso')) continue;
      if (await tx.sessions.revoke(tenantId, session.id, now)) revoked += 1;
    }
  }
  return revoked;
}

/** @internal The tenant's OpenID Connect connection (API.md 1.2): configure, read, remove. */
export function createSsoConnection(
  services: Services,
  sso: SsoOptions | undefined,
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

  async function reachable(provider: IdentityProvider, issuer: string): Promise<void> {
    try {
      await provider.discover(issuer);
    } catch (err) {
      logger.warn({ err: { message: (err as Error)?.message }, issuer }, 'tenant-auth: SSO discovery failed');
      throw validationError([
        {
          field: 'issuer',
          code: 'issuer_unreachable',
          message: "The issuer's discovery document could not be fetched or is invalid.",
        },
      ]);
    }
  }

  async function configureSso(
    claims: AccessClaims,
    input: ConfigureSsoInput,
    context: RequestContext = {},
  ): Promise<SsoConnection> {
    if (!sso) throw unavailable();
    const checked = checkedInput(input);
    const user = await actingUser(stores, claims, clock.now(), 'owner');
    await requireRecent(claims);
    await reachable(sso.identityProvider, checked.issuer);
    const now = clock.now();
    const saved = await events.transaction(async (tx, record) => {
      if (!(await tx.tenants.lock(user.tenantId))) throw notFound();
      const before = await tx.sso.findConnection(user.tenantId);
      const connection: SsoConnectionRecord = {
        tenantId: user.tenantId,
        issuer: checked.issuer,
        clientId: checked.clientId,
        sealedClientSecret: sealer.seal(
          Buffer.from(checked.clientSecret, 'utf8'),
          CLIENT_SECRET_PURPOSE,
          user.tenantId,
        ),
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
    return toSsoConnection(saved, sso.redirectUri);
  }

  async function getSso(claims: AccessClaims): Promise<SsoConnection | null> {
    await currentUser(stores, claims, 'admin');
    const connection = await stores.sso.findConnection(claims.tenantId);
    return connection && toSsoConnection(connection, sso?.redirectUri ?? '');
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
