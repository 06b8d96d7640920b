import { createHash } from 'node:crypto';
import type { AuthMethod } from '../claims.js';
import { normalizeEmail } from '../email.js';
import { isTenantAuthError, notFound, validationError } from '../errors.js';
import { uuidv7 } from '../ids.js';
import type { RequestContext, UserRecord } from '../records.js';
import type { Services } from '../services.js';
import type { SsoConnectionRecord } from '../stores/sso-store.js';
import { CLIENT_SECRET_PURPOSE } from './connection.js';
import { domainOf } from './domain-names.js';
import type { IdentityProviderClient, ProvidedIdentity } from './sso-ports.js';
import type { SsoCompletion, SsoErrorCode, SsoOptions, SsoStart } from './sso-types.js';

/** How long a started sign-in may take (the `sso_state` cookie's `Max-Age`). */
export const SSO_STATE_TTL_SECONDS = 600;
const STATE_PURPOSE = 'sso-state';
/** A JIT user has no password: no bcrypt hash matches this, so a password login fails. */
const NO_PASSWORD = '!sso';

/** What the `sso_state` cookie holds, sealed. */
interface SealedState {
  tenantId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string | null;
  expiresAt: number;
}

/** A refusal of the callback, thrown inside its transaction (which then rolls back). */
class Refusal {
  constructor(readonly code: SsoErrorCode) {}
}

const randomText = (services: Services) => Buffer.from(services.random(32)).toString('base64url');

/** `returnTo` when it is a URL of the application's origin; otherwise `null`. */
function sameOrigin(value: unknown, appUrl: string): string | null {
  if (typeof value !== 'string' || value.length > 2048) return null;
  try {
    const url = new URL(value, `${appUrl}/`);
    return url.origin === new URL(appUrl).origin ? url.href : null;
  } catch {
    return null;
  }
}

/** @internal Signing in through a tenant's identity provider (API.md 1.2): `start` and `complete`. */
export function createSsoSignIn(services: Services, sso: SsoOptions | undefined) {
  const { stores, clock, sealer, events, sessionTokens, logger } = services;

  const clientOf = (connection: SsoConnectionRecord, options: SsoOptions): IdentityProviderClient => ({
    issuer: connection.issuer,
    clientId: connection.clientId,
    clientSecret: sealer
      .open(connection.sealedClientSecret, CLIENT_SECRET_PURPOSE, connection.tenantId)
      .toString('utf8'),
    redirectUri: options.redirectUri,
  });

  async function startSso(input: { email: string; returnTo?: string | undefined }): Promise<SsoStart> {
    if (typeof input?.email !== 'string' || input.email.length > 254) {
      throw validationError([
        { field: 'email', code: 'invalid_email', message: 'The email address is invalid.' },
      ]);
    }
    const domain = domainOf(normalizeEmail(input.email));
    if (!sso || domain === null) throw notFound();
    const verified = await stores.sso.findVerifiedDomain(domain);
    const connection = verified && (await stores.sso.findConnection(verified.tenantId));
    if (!connection) throw notFound();
    const sealed: SealedState = {
      tenantId: connection.tenantId,
      state: randomText(services),
      nonce: randomText(services),
      codeVerifier: randomText(services),
      returnTo: sameOrigin(input.returnTo, sso.appUrl),
      expiresAt: clock.now().getTime() + SSO_STATE_TTL_SECONDS * 1000,
    };
    const codeChallenge = createHash('sha256').update(sealed.codeVerifier).digest('base64url');
    const url = await sso.identityProvider.authorizationUrl(clientOf(connection, sso), {
      state: sealed.state,
      nonce: sealed.nonce,
      codeChallenge,
    });
    const stateCookie = sealer.seal(Buffer.from(JSON.stringify(sealed), 'utf8'), STATE_PURPOSE, '');
    return { url, stateCookie, maxAgeSeconds: SSO_STATE_TTL_SECONDS };
  }

  /** The sealed state, if the cookie opens, is unexpired and names the `state` the provider sent back. */
  function openState(stateCookie: string | undefined, url: URL): SealedState | null {
    if (typeof stateCookie !== 'string' || stateCookie === '') return null;
    try {
      const sealed = JSON.parse(sealer.open(stateCookie, STATE_PURPOSE, '').toString('utf8')) as SealedState;
      if (sealed.expiresAt <= clock.now().getTime()) return null;
      return url.searchParams.get('state') === sealed.state ? sealed : null;
    } catch {
      return null;
    }
  }

  /** The user `identity` names in the tenant: found by `(issuer, sub)`, linked by address once, or created. */
  async function signIn(
    connection: SsoConnectionRecord,
    identity: ProvidedIdentity,
    email: string,
    context: RequestContext,
  ) {
    const { tenantId, issuer } = connection;
    return events.transaction(async (tx, record) => {
      let user: UserRecord | null = null;
      let provisioned = false;
      const linked = await tx.sso.findIdentity(tenantId, issuer, identity.subject);
      if (linked) user = await tx.users.findById(tenantId, linked.userId);
      if (!user) {
        const existing = await tx.users.findByEmail(email);
        if (existing && existing.tenantId !== tenantId) throw new Refusal('email_taken');
        if (existing && (await tx.sso.findIdentityOfUser(tenantId, existing.id, issuer)))
          throw new Refusal('identity_mismatch');
        user = existing ?? {
          id: uuidv7(clock, services.random),
          tenantId,
          email,
          passwordHash: NO_PASSWORD,
          role: connection.defaultRole,
          emailVerified: true,
          createdAt: clock.now(),
        };
        if (!existing) {
          await tx.users.create(user);
          provisioned = true;
        } else if (!existing.emailVerified) {
          // The tenant's provider vouches for an address of the tenant's own verified domain.
          await tx.users.markEmailVerified(tenantId, existing.id);
          user = { ...existing, emailVerified: true };
        }
        const link = { tenantId, userId: user.id, issuer, subject: identity.subject, createdAt: clock.now() };
        if (!(await tx.sso.linkIdentity(link))) throw new Refusal('identity_mismatch');
      }
      const amr: AuthMethod[] = identity.amr.includes('mfa') ? ['sso', 'mfa'] : ['sso'];
      const { session, refreshToken } = await sessionTokens.newSession(user, context, undefined, amr);
      await tx.sessions.create(session);
      const who = { tenantId, actorId: user.id, subjectId: user.id, sessionId: session.id };
      if (provisioned) await record({ type: 'sso_user_provisioned', ...events.base(who, context) });
      await record({ type: 'sso_login', ...events.base(who, context) });
      return { session, user, refreshToken };
    });
  }

  async function completeSso(
    input: { stateCookie: string | undefined; search: string },
    context: RequestContext = {},
  ): Promise<SsoCompletion> {
    const appUrl = sso?.appUrl ?? '';
    const refuse = (code: SsoErrorCode): SsoCompletion => ({
      ok: false,
      code,
      redirectTo: `${appUrl}/sso-error?code=${code}`,
    });
    if (!sso) return refuse('invalid_state');
    // The provider's answer as it reached our redirect URI (whatever proxies the request went through).
    const url = new URL(sso.redirectUri);
    url.search = typeof input?.search === 'string' ? input.search : '';
    const sealed = openState(input?.stateCookie, url);
    if (!sealed) return refuse('invalid_state');
    // The provider answered an error (the user cancelled, the provider refused): nothing to exchange.
    if (url.searchParams.has('error')) return refuse('idp_error');
    const connection = await stores.sso.findConnection(sealed.tenantId);
    if (!connection) return refuse('idp_error');
    const result = await sso.identityProvider
      .exchange(clientOf(connection, sso), {
        url,
        state: sealed.state,
        nonce: sealed.nonce,
        codeVerifier: sealed.codeVerifier,
      })
      .catch((err: unknown) => ({ ok: false as const, reason: 'idp_error' as const, detail: String(err) }));
    if (!result.ok) {
      logger.warn(
        { reason: result.reason, detail: result.detail, tenantId: connection.tenantId },
        'tenant-auth: SSO callback refused',
      );
      return refuse(result.reason);
    }
    const { identity } = result;
    if (identity.issuer !== connection.issuer) return refuse('invalid_id_token');
    const email = identity.email === null ? null : normalizeEmail(identity.email);
    const domain = email === null ? null : domainOf(email);
    const record = domain === null ? null : await stores.sso.findDomain(connection.tenantId, domain);
    if (!email || !record?.verifiedAt || identity.emailVerified === false) return refuse('domain_mismatch');
    try {
      const { session, user, refreshToken } = await signIn(connection, identity, email, context);
      const tokens = await sessionTokens.respond(session, user, refreshToken, true);
      return { ok: true, tokens, redirectTo: sealed.returnTo ?? appUrl };
    } catch (err) {
      if (err instanceof Refusal) return refuse(err.code);
      // Another request created a user with this address meanwhile.
      if (isTenantAuthError(err, 'email_taken')) return refuse('email_taken');
      throw err;
    }
  }

  return { startSso, completeSso };
}
