import { isActive } from '../../mechanisms/deactivation.js';
import { normalizeEmail } from '../../mechanisms/inputs/email.js';
import type { Services } from '../../mechanisms/services.js';
import { trustOf } from '../../mechanisms/sso/connection-trust.js';
import { domainOf } from '../../mechanisms/sso/domain-names.js';
import { NO_PASSWORD } from '../../mechanisms/sso/no-password.js';
import type { IdentityProviderResult, ProvidedIdentity, ProviderDocument } from '../../ports/sso-ports.js';
import type { SsoConnectionRecord } from '../../ports/sso-store.js';
import type { AuthMethod } from '../../vocabulary/claims.js';
import { isTenantAuthError, notFound, validationError } from '../../vocabulary/errors.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import { authenticationOf, type RequestContext, type UserRecord } from '../../vocabulary/records.js';
import { openConnection, providerFor } from './providers.js';
import { createSsoReauthentication } from './reauthentication.js';
import type { ResolvedSso } from './sso-options.js';
import { Refusal } from './sso-refusal.js';
import { openState, randomState, SSO_STATE_TTL_SECONDS, sameOrigin, sealState } from './sso-state.js';
import type { SsoCallback, SsoCompletion, SsoStart } from './sso-types.js';

/** An `auth_time` no recent-authentication check accepts: the provider did not say when. */
const NEVER_RECENT = new Date(0);

/**
 * The session's `auth_time` (docs/http-api.md, "Recency from the provider": the ID token's `auth_time`,
 * not the time of the callback): the provider's, in whole seconds, when it says one no later than `now`
 * (a later one, clock skew, is `now`). An OpenID Connect ID token without one (the server asks for it) is
 * never recent: the user signs in, and proves itself again for a *recent* operation. A protocol whose
 * answers carry no `auth_time` (SAML) counts from the callback.
 */
function providerAuthTime(protocol: string, identity: ProvidedIdentity, now: Date): Date {
  const at = identity.authTime?.getTime();
  if (at === undefined || !Number.isFinite(at)) return protocol === 'oidc' ? NEVER_RECENT : now;
  if (at > now.getTime()) return now;
  return new Date(Math.floor(at / 1000) * 1000);
}

/**
 * @internal Signing in through a tenant's identity provider (`docs/http-api.md`, "Single sign-on (OpenID
 * Connect) per tenant"), whatever its protocol: `start` and `complete`.
 */
export function createSsoSignIn(services: Services, sso: ResolvedSso | undefined) {
  const { stores, clock, sealer, events, sessionTokens, logger } = services;
  const { reauthenticateSso, completeReauthentication } = createSsoReauthentication(services, sso);

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
    const provider = connection && providerFor(sso, connection.protocol);
    if (!connection || !provider) throw notFound();
    const state = randomState(services);
    const started = await provider.start(openConnection(sealer, connection), {
      state,
      forceAuthentication: false,
    });
    const stateCookie = sealState(sealer, {
      tenantId: connection.tenantId,
      protocol: connection.protocol,
      state,
      returnTo: sameOrigin(input.returnTo, sso.appUrl),
      kept: started.kept,
      expiresAt: clock.now().getTime() + SSO_STATE_TTL_SECONDS * 1000,
    });
    const sameSite = provider.returnsBy === 'form' ? 'None' : 'Lax';
    return { url: started.url, stateCookie, maxAgeSeconds: SSO_STATE_TTL_SECONDS, sameSite };
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
      let newLink = false;
      const linked = await tx.sso.findIdentity(tenantId, issuer, identity.subject);
      if (linked) user = await tx.users.findById(tenantId, linked.userId);
      if (!user) {
        const existing = await tx.users.findByEmail(email);
        if (existing && existing.tenantId !== tenantId)
          throw new Refusal('email_taken', 'the address belongs to a user of another tenant');
        if (existing && (await tx.sso.findIdentityOfUser(tenantId, existing.id, issuer)))
          throw new Refusal(
            'identity_mismatch',
            "the address's user is linked to another subject at this issuer",
          );
        // An owner is never linked by address: whoever controls the provider (or an address at it) would
        // take over the tenant. The owner links from a recent session (POST /auth/sso/reauthenticate).
        if (existing?.role === 'owner')
          throw new Refusal(
            'link_required',
            "the address is an owner's with no identity at this issuer yet: the owner links it after a re-authentication",
          );
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
        if (!(await tx.sso.linkIdentity(link)))
          throw new Refusal('identity_mismatch', 'another sign-in linked this user or subject meanwhile');
        newLink = true;
      }
      // A deactivated account signs in through its provider no more (docs/http-api.md, "Errors added in 1.3").
      if (!isActive(user)) throw new Refusal('account_disabled', 'the account was deactivated');
      const amr: AuthMethod[] = identity.amr.includes('mfa') ? ['sso', 'mfa'] : ['sso'];
      const made = await sessionTokens.newSession(user, context, undefined, amr);
      const { refreshToken } = made;
      // The session is as recent as the user's authentication at the provider (its `auth_time`), not
      // as the callback; never later than now, and never recent when the ID token does not say.
      const session = {
        ...made.session,
        authTime: providerAuthTime(connection.protocol, identity, authenticationOf(made.session).authTime),
      };
      await tx.sessions.create(session);
      const who = { tenantId, actorId: user.id, subjectId: user.id, sessionId: session.id };
      if (provisioned) await record({ type: 'sso_user_provisioned', ...events.base(who, context) });
      if (newLink) await record({ type: 'sso_identity_linked', ...events.base(who, context) });
      await record({ type: 'sso_login', ...events.base(who, context) });
      return { session, user, refreshToken };
    });
  }

  /**
   * The provider's answer to a started sign-in, checked by its provider: a {@link Refusal} without a state
   * of this browser that the answer names.
   */
  async function finish(
    sealedState: string | undefined,
    params: Readonly<Record<string, string>>,
    routeTenantId: string | undefined,
  ) {
    const state = openState(sealer, sealedState, clock.now().getTime());
    if (!state)
      throw new Refusal('invalid_state', 'no sso_state cookie, or one that does not open or has expired');
    // A route of one tenant (SAML's ACS) finishes only that tenant's sign-ins.
    if (routeTenantId !== undefined && routeTenantId !== state.tenantId)
      throw new Refusal('invalid_state', "the answer reached another tenant's route than the sso_state's");
    const provider = providerFor(sso, state.protocol);
    if (!provider) throw new Refusal('invalid_state', `the server no longer offers ${state.protocol}`);
    if (params[provider.stateParameter] !== state.state)
      throw new Refusal('invalid_state', "the answer's state is not this browser's sso_state");
    // A state finishes one sign-in, whatever its outcome: a copied cookie and answer cannot be replayed.
    const fresh = await stores.sso.useOnce?.(
      { tenantId: state.tenantId, kind: 'state', id: state.state },
      new Date(state.expiresAt),
    );
    if (fresh === false) throw new Refusal('invalid_state', 'this sso_state finished a sign-in already');
    const connection = await stores.sso.findConnection(state.tenantId);
    // The connection is gone, or now of another protocol: the provider cannot finish what it started.
    if (!connection || connection.protocol !== state.protocol)
      throw new Refusal('idp_error', 'the connection changed during the sign-in');
    const result: IdentityProviderResult = await provider
      .finish(openConnection(sealer, connection), { params, kept: state.kept })
      .catch((err: unknown) => ({
        ok: false as const,
        reason: 'idp_error' as const,
        detail: `the provider failed: ${err instanceof Error ? err.name : 'error'}`,
      }));
    if (!result.ok)
      throw new Refusal(result.reason, result.detail ?? `the provider refused the answer (${result.reason})`);
    const once = result.identity.oneTimeId;
    if (once !== undefined) {
      // SAML's replay cache: an assertion is accepted once, by whichever instance sees it first.
      const first = await stores.sso.useOnce?.(
        { tenantId: state.tenantId, kind: 'assertion', id: once.id },
        once.expiresAt,
      );
      if (first === undefined)
        throw new Refusal('invalid_response', 'the SSO store keeps no marks of used assertions (useOnce)');
      if (!first) throw new Refusal('invalid_response', 'the assertion was accepted before (a replay)');
    }
    return { state, connection, identity: result.identity };
  }

  /** The identity's address, once it is in a verified domain of the connection's tenant. */
  async function addressOf(connection: SsoConnectionRecord, identity: ProvidedIdentity): Promise<string> {
    if (identity.issuer !== connection.issuer)
      throw new Refusal('invalid_id_token', "the identity's issuer is not the connection's");
    if (identity.email === null)
      throw new Refusal(
        'domain_mismatch',
        'the ID token has no email claim and the userinfo endpoint gave none',
      );
    const email = normalizeEmail(identity.email);
    const domain = domainOf(email);
    const record = domain === null ? null : await stores.sso.findDomain(connection.tenantId, domain);
    if (!record?.verifiedAt)
      throw new Refusal(
        'domain_mismatch',
        `the address's domain (${domain ?? 'none'}) is not a verified domain of the tenant`,
      );
    // Only the boolean `true` verifies (the string "false" does not); Entra ID never says.
    if (identity.emailVerified !== true && !trustOf(connection.settings).trustUnverifiedEmail)
      throw new Refusal(
        'email_not_verified',
        identity.emailVerified === false
          ? 'the provider says the address is not verified'
          : 'the provider does not say the address is verified (email_verified), and the connection does not set trustUnverifiedEmail',
      );
    return email;
  }

  async function completeSso(input: SsoCallback, context: RequestContext = {}): Promise<SsoCompletion> {
    const appUrl = sso?.appUrl ?? '';
    const params = typeof input?.params === 'object' && input.params !== null ? input.params : {};
    let tenantId: string | undefined;
    try {
      const routeTenantId = typeof input?.tenantId === 'string' ? input.tenantId : undefined;
      const { state, connection, identity } = await finish(input?.stateCookie, params, routeTenantId);
      tenantId = state.tenantId;
      const { session, user, refreshToken } = state.reauthentication
        ? await completeReauthentication(
            state.reauthentication,
            connection,
            identity,
            () => addressOf(connection, identity),
            context,
          )
        : await signIn(connection, identity, await addressOf(connection, identity), context);
      const tokens = await sessionTokens.respond(session, user, refreshToken, true);
      return { ok: true, tokens, redirectTo: state.returnTo ?? appUrl };
    } catch (err) {
      const refusal =
        err instanceof Refusal
          ? err
          : // Another request created a user with this address meanwhile.
            isTenantAuthError(err, 'email_taken')
            ? new Refusal('email_taken', 'another request created a user with this address meanwhile')
            : null;
      if (!refusal) throw err;
      // One line per refused callback, at warn: the reason in words (never a token, secret or address).
      logger.warn(
        { reason: refusal.code, detail: refusal.detail, tenantId },
        'tenant-auth: SSO callback refused',
      );
      return { ok: false, code: refusal.code, redirectTo: `${appUrl}/sso-error?code=${refusal.code}` };
    }
  }

  /** The document the provider of `protocol` publishes for the tenant's connection; `null` when none. */
  async function ssoProviderDocument(tenantId: string, protocol: string): Promise<ProviderDocument | null> {
    if (typeof tenantId !== 'string' || typeof protocol !== 'string') return null;
    // Read first, with or without SSO on: the answer does not say which (and a store down is a 503).
    const connection = await stores.sso.findConnection(tenantId);
    if (!sso) return null;
    const provider = providerFor(sso, protocol);
    if (!connection || connection.protocol !== protocol || !provider?.document) return null;
    const { issuer, settings } = connection;
    return provider.document({ tenantId, protocol, issuer, settings });
  }

  return { startSso, completeSso, reauthenticateSso, ssoProviderDocument };
}
