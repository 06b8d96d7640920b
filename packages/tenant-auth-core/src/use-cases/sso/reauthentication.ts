import { actingUser } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { ProvidedIdentity } from '../../ports/sso-ports.js';
import type { SsoConnectionRecord } from '../../ports/sso-store.js';
import type { AccessClaims, AuthMethod } from '../../vocabulary/claims.js';
import { notFound } from '../../vocabulary/errors.js';
import type { RequestContext, SessionRecord, UserRecord } from '../../vocabulary/records.js';
import { openConnection, providerFor } from './providers.js';
import type { ResolvedSso } from './sso-options.js';
import { Refusal } from './sso-refusal.js';
import { randomState, SSO_STATE_TTL_SECONDS, type SsoState, sameOrigin, sealState } from './sso-state.js';
import type { SsoStart } from './sso-types.js';

/** What a re-authentication's callback made: the same session, rotated. */
interface Reauthenticated {
  session: SessionRecord;
  user: UserRecord;
  refreshToken: string;
}

/**
 * @internal Re-authentication at the provider (docs/http-api.md, "Single sign-on: rules that change in
 * 1.3"): `reauthenticateSso` starts it for the caller's session, with the provider told to authenticate
 * afresh; `completeReauthentication` is the callback's part for a state that started one: the same
 * identity (or, for a user with none at the issuer, a link by the provider's verified address, equal to
 * the user's), recently authenticated, rotates the same session.
 */
export function createSsoReauthentication(services: Services, sso: ResolvedSso | undefined) {
  const { stores, clock, sealer, events, sessionTokens, reauthMaxAgeSeconds, requireRecent } = services;

  async function reauthenticateSso(
    claims: AccessClaims,
    input: { returnTo?: string | undefined } | undefined,
  ): Promise<SsoStart> {
    const user = await actingUser(stores, claims, clock.now());
    const connection = sso ? await stores.sso.findConnection(user.tenantId) : null;
    const provider = connection && providerFor(sso, connection.protocol);
    if (!sso || !connection || !provider) throw notFound();
    // A user with no identity at the issuer yet (an owner, never linked by address) links one here: only
    // from a recent session, by the rule of every recent operation (docs/http-api.md, "Rules that change
    // in 1.3": "The owner links from a recent session"), or a stolen stale session could bind the
    // attacker's provider account to the owner.
    const linking = !(await stores.sso.findIdentityOfUser(user.tenantId, user.id, connection.issuer));
    if (linking) await requireRecent(claims);
    const state = randomState(services);
    const started = await provider.start(openConnection(sealer, connection), {
      state,
      forceAuthentication: true,
    });
    const stateCookie = sealState(sealer, {
      tenantId: connection.tenantId,
      protocol: connection.protocol,
      state,
      returnTo: sameOrigin(input?.returnTo, sso.appUrl),
      kept: started.kept,
      expiresAt: clock.now().getTime() + SSO_STATE_TTL_SECONDS * 1000,
      reauthentication: {
        sessionId: claims.sessionId,
        userId: user.id,
        ...(linking ? { mayLink: true } : {}),
      },
    });
    const sameSite = provider.returnsBy === 'form' ? 'None' : 'Lax';
    return { url: started.url, stateCookie, maxAgeSeconds: SSO_STATE_TTL_SECONDS, sameSite };
  }

  /** A {@link Refusal} unless the provider says it authenticated the user within `reauthMaxAgeSeconds`. */
  function requireFreshAuthentication(connection: SsoConnectionRecord, identity: ProvidedIdentity): void {
    // SAML asserts a fresh authentication by `ForceAuthn`; an OpenID Connect ID token says when.
    if (connection.protocol !== 'oidc') return;
    const at = identity.authTime?.getTime();
    if (at === undefined || !Number.isFinite(at))
      throw new Refusal('invalid_id_token', 'the ID token of a re-authentication has no auth_time');
    if (clock.now().getTime() - at > reauthMaxAgeSeconds * 1000)
      throw new Refusal(
        'invalid_id_token',
        `the ID token's auth_time is older than ${reauthMaxAgeSeconds} seconds`,
      );
  }

  async function completeReauthentication(
    again: NonNullable<SsoState['reauthentication']>,
    connection: SsoConnectionRecord,
    identity: ProvidedIdentity,
    addressOf: () => Promise<string>,
    context: RequestContext,
  ): Promise<Reauthenticated> {
    const { tenantId, issuer } = connection;
    if (identity.issuer !== issuer)
      throw new Refusal('invalid_id_token', "the identity's issuer is not the connection's");
    requireFreshAuthentication(connection, identity);
    // Read before the transaction (its stores are not the transaction's): needed only to link.
    const address = await addressOf().catch((err: unknown) => {
      if (err instanceof Refusal) return err;
      throw err;
    });
    return events.transaction(async (tx, record) => {
      const user = await tx.users.findById(tenantId, again.userId);
      if (!user) throw new Refusal('invalid_state', "the re-authenticating user is no longer the tenant's");
      const mine = await tx.sso.findIdentityOfUser(tenantId, user.id, issuer);
      let newLink = false;
      if (mine && mine.subject !== identity.subject)
        throw new Refusal('identity_mismatch', "the provider authenticated another subject than the user's");
      if (!mine) {
        // No identity at this issuer yet (an owner, never linked by address at sign-in): the provider's
        // verified address must be the user's own, and the re-authentication started from a recent session.
        if (!again.mayLink)
          throw new Refusal(
            'link_required',
            'the user has no identity at this issuer, and the re-authentication did not start from a recent session',
          );
        if (address instanceof Refusal) throw address;
        if (address !== user.email)
          throw new Refusal('identity_mismatch', "the provider's address is not the user's");
        const link = { tenantId, userId: user.id, issuer, subject: identity.subject, createdAt: clock.now() };
        if (!(await tx.sso.linkIdentity(link)))
          throw new Refusal('identity_mismatch', "the provider's subject is linked to another user");
        newLink = true;
      }
      const now = clock.now();
      const session = await tx.sessions.findById(tenantId, again.sessionId);
      if (!session || session.userId !== user.id)
        throw new Refusal('invalid_state', 'the re-authenticating session is gone');
      const { refreshToken, next } = await sessionTokens.rotationFor(session, now);
      const amr: AuthMethod[] = identity.amr.includes('mfa') ? ['sso', 'mfa'] : ['sso'];
      const done = await tx.sessions.reauthenticate(tenantId, session.id, user.id, {
        ...next,
        // No reuse grace, as for a password re-authentication: the previous token is a replay from now on.
        rotatedAt: new Date(0),
        amr,
        authTime: new Date(Math.floor(now.getTime() / 1000) * 1000),
      });
      if (!done) throw new Refusal('invalid_state', 'the re-authenticating session is no longer active');
      const who = { tenantId, actorId: user.id, subjectId: user.id, sessionId: session.id };
      if (newLink) await record({ type: 'sso_identity_linked', ...events.base(who, context) });
      await record({ type: 'reauthenticated', ...events.base(who, context) });
      return { session: done, user, refreshToken };
    });
  }

  return { reauthenticateSso, completeReauthentication };
}
