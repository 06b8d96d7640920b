import { actingPrincipal, assertEmailVerified, invalidRole } from '../../mechanisms/authorization.js';
import { isActive } from '../../mechanisms/deactivation.js';
import { parseEmail } from '../../mechanisms/inputs/email.js';
import { optionalText } from '../../mechanisms/inputs/inputs.js';
import { slugify } from '../../mechanisms/inputs/slug.js';
import { hashingOwner } from '../../mechanisms/rate-limit/client-ip-key.js';
import { rateLimited } from '../../mechanisms/rate-limit/rate-limiter.js';
import type { Services } from '../../mechanisms/services.js';
import { heldToSso, ssoRequired, ssoTenantOfAddress } from '../../mechanisms/sso/sso-hold.js';
import { hashOneTimeToken, LINK_PATHS } from '../../mechanisms/tokens/one-time-tokens.js';
import type { Principal, TokenResponse } from '../../vocabulary/claims.js';
import {
  type FieldError,
  forbidden,
  invalidOrExpired,
  isTenantAuthError,
  mailUnavailable,
  notFound,
  validationError,
} from '../../vocabulary/errors.js';
import { normalizeUuid, uuidv7 } from '../../vocabulary/ids.js';
import { LIST_LIMITS } from '../../vocabulary/list-limits.js';
import type { Invitation, OneTimeTokenRecord, RequestContext, UserRecord } from '../../vocabulary/records.js';
import { atLeast, isRole, type Role } from '../../vocabulary/roles.js';

/** Whether a member of `role` may hand out `granted`: admins and owners invite, only owners make owners. */
const mayGrant = (role: Role, granted: Role) =>
  granted === 'owner' ? role === 'owner' : atLeast(role, 'admin');

/**
 * Input of `TenantAuth.createInvitation`.
 *
 * @example
 * const input: CreateInvitationInput = { email: 'grace@example.com', role: 'admin' };
 */
export interface CreateInvitationInput {
  email: string;
  role: Role;
}

/**
 * Input of `TenantAuth.acceptInvitation`: the token from the link, and the new account's password.
 *
 * @example
 * const input: AcceptInvitationInput = { token: new URL(location.href).searchParams.get('token')!, password };
 */
export interface AcceptInvitationInput {
  token: string;
  password: string;
  /** Free text naming the device (at most 200 characters). Default: a summary of the user agent. */
  deviceInfo?: string | undefined;
}

/** @internal An invitation token as an administrator sees it. */
export const invitationOf = (token: OneTimeTokenRecord): Invitation => ({
  id: token.id,
  email: token.email,
  role: token.role ?? 'member',
  createdAt: token.createdAt,
  expiresAt: token.expiresAt,
  invitedBy: token.createdBy,
});

const emailTaken = () =>
  validationError([{ field: 'email', code: 'email_taken', message: 'This email is already registered.' }]);

/** Creating an invitation: the token, its email, its audit event. */
function createInvitationSending(services: Services) {
  const { stores, events, clock, oneTimeTokens, mail, limits } = services;

  return {
    async createInvitation(
      principal: Principal,
      input: CreateInvitationInput,
      context: RequestContext = {},
    ): Promise<Invitation> {
      const caller = await actingPrincipal(stores, principal, clock.now(), 'admin');
      const errors: FieldError[] = [];
      const email = parseEmail(input?.email);
      if (!email.ok) errors.push(email.error);
      if (!isRole(input?.role)) errors.push(...(invalidRole().errors ?? []));
      if (!email.ok || errors.length > 0) throw validationError(errors);
      const role = input.role;
      if (role === 'owner' && caller.role !== 'owner') throw forbidden('Only an owner may invite an owner.');
      if (await stores.users.findByEmail(email.email)) throw emailTaken();
      if (!mail) throw mailUnavailable();
      // Checked last, just before anything is written or charged (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)").
      assertEmailVerified(caller);
      const budget = await limits?.mailbox(email.email, context);
      if (budget && !budget.allowed)
        throw rateLimited({ ...budget, key: undefined }, 'Too many emails to this address; try again later.');

      const invitation = await events.transaction(async (tx, record) => {
        // Checked again under the lock of role changes and removals, as they are: a "sign out
        // everywhere", a removal or a demotion that committed since the check above stops it here.
        if (!(await tx.tenants.lock(principal.tenantId))) throw notFound();
        const inviter = await actingPrincipal(tx, principal, clock.now(), 'admin');
        if (role === 'owner' && inviter.role !== 'owner')
          throw forbidden('Only an owner may invite an owner.');
        const tenant = await tx.tenants.findById(principal.tenantId);
        if (!tenant) throw notFound();
        const { token, record: issued } = await oneTimeTokens.issue(tx, {
          kind: 'invitation',
          tenantId: tenant.id,
          userId: null,
          email: email.email,
          role,
          // A key's invitation is as good as the key's creator (checked again on acceptance).
          createdBy: caller.accountableUserId,
          lifetimeSeconds: services.invitationTtlSeconds,
        });
        await mail.enqueue(tx, {
          template: 'invitation',
          to: email.email,
          tenantId: tenant.id,
          data: {
            link: mail.link(LINK_PATHS.invitation, token),
            lifetimeSeconds: services.invitationTtlSeconds,
            tenantName: tenant.name,
            role,
            invitedBy: caller.label,
          },
        });
        const parties = {
          tenantId: tenant.id,
          actorId: caller.id,
          actorType: caller.actorType,
          subjectId: issued.id,
          sessionId: caller.sessionId,
        };
        await record({ type: 'invitation_created', role, ...events.base(parties, context) });
        return invitationOf(issued);
      });
      mail.wake();
      return invitation;
    },
  };
}

/** @internal Invitations: create, list, revoke, accept. */
export function createInvitations(services: Services) {
  const { stores, events, clock } = services;

  return {
    ...createInvitationSending(services),

    async listInvitations(principal: Principal): Promise<Invitation[]> {
      await actingPrincipal(stores, principal, clock.now(), 'admin');
      const limit = LIST_LIMITS.invitations;
      const pending = await stores.oneTimeTokens.listPending(principal.tenantId, 'invitation', clock.now(), {
        limit,
      });
      return pending.slice(0, limit).map(invitationOf);
    },

    async revokeInvitation(principal: Principal, rawId: string, context: RequestContext = {}): Promise<void> {
      const caller = await actingPrincipal(stores, principal, clock.now(), 'admin');
      const id = normalizeUuid(rawId);
      if (id === null) throw notFound();
      await events.transaction(async (tx, record) => {
        if (!(await tx.oneTimeTokens.revoke(principal.tenantId, 'invitation', id))) throw notFound();
        const parties = {
          tenantId: principal.tenantId,
          actorId: caller.id,
          actorType: caller.actorType,
          subjectId: id,
          sessionId: caller.sessionId,
        };
        await record({ type: 'invitation_revoked', ...events.base(parties, context) });
      });
    },

    ...createInvitationAcceptance(services),
  };
}

/**
 * Accepting an invitation: the new account and its first session, if its inviter may still grant the role.
 * Into a tenant that requires a second factor, the account without a session: `mfa_setup_required`.
 */
function createInvitationAcceptance(services: Services) {
  const { stores, events, clock, random, hasher, policy, sessionTokens, secondFactor } = services;

  return {
    async acceptInvitation(
      input: AcceptInvitationInput,
      context: RequestContext = {},
    ): Promise<TokenResponse> {
      const hash = hashOneTimeToken(input?.token);
      const deviceInfo = optionalText(input?.deviceInfo, 'deviceInfo');
      if (!deviceInfo.ok) throw validationError([deviceInfo.error]);
      if (typeof input?.password !== 'string') {
        throw validationError([{ field: 'password', code: 'required', message: 'A password is required.' }]);
      }
      if (hash === null) throw invalidOrExpired();
      const invitation = await stores.oneTimeTokens.find('invitation', hash, clock.now());
      if (!invitation) throw invalidOrExpired();
      const tenant = await stores.tenants.findById(invitation.tenantId);
      if (!tenant) throw invalidOrExpired();
      const problems = policy.check(input.password, {
        email: invitation.email,
        tenantName: tenant.name,
        tenantSlug: slugify(tenant.name),
      });
      if (problems.length > 0) throw validationError(problems);
      if (await stores.users.findByEmail(invitation.email)) throw emailTaken();
      // An address of a domain another tenant verified and connected is that tenant's.
      const holder = await ssoTenantOfAddress(stores, invitation.email);
      if (holder !== null && holder !== tenant.id) throw ssoRequired();

      const user: UserRecord = {
        id: uuidv7(clock, random),
        tenantId: tenant.id,
        email: invitation.email,
        passwordHash: await hasher.hash(input.password, hashingOwner(context.ipAddress)),
        role: invitation.role ?? 'member',
        // The link reached this address: it is verified.
        emailVerified: true,
        createdAt: clock.now(),
      };
      const { session, refreshToken } = await sessionTokens.newSession(
        user,
        context,
        deviceInfo.ok ? deviceInfo.value : undefined,
        ['pwd'],
      );
      let setupFirst = false;
      let heldFirst = false;
      try {
        await events.transaction(async (tx, record) => {
          // Consumed in the transaction that creates the user: if anything below fails, it is usable again.
          // The lock of role changes and removals: the inviter's role is read as it is once every change
          // under way has committed, so an invitation accepted while its inviter is being demoted or
          // removed sees the outcome (without it, the old role was read and the grant went through).
          if (!(await tx.tenants.lock(tenant.id))) throw invalidOrExpired();
          if (!(await tx.oneTimeTokens.consume('invitation', hash, clock.now()))) throw invalidOrExpired();
          // An invitation is only as good as its inviter: one sent by an administrator who has since been
          // removed or demoted grants nothing (else a removed admin could come back through it).
          const inviter = invitation.createdBy
            ? await tx.users.findById(tenant.id, invitation.createdBy)
            : null;
          // A deactivated inviter's invitations grant nothing either, as a removed one's.
          if (!inviter || !isActive(inviter) || !mayGrant(inviter.role, user.role)) throw invalidOrExpired();
          await tx.users.create(user);
          // Read under the lock (turning SSO's `enforce` on takes it too): an address the tenant signs in
          // through its provider gets no password session, else an invitation would bypass `enforce`.
          heldFirst = await heldToSso(tx, user);
          // Read under the lock: a policy turned on a moment ago holds for this account too.
          setupFirst = !heldFirst && (await tx.tenants.findById(tenant.id))?.requireMfa === true;
          if (!setupFirst && !heldFirst) await tx.sessions.create(session);
          const parties = {
            tenantId: tenant.id,
            actorId: user.id,
            subjectId: invitation.id,
            sessionId: setupFirst || heldFirst ? null : session.id,
          };
          await record({ type: 'invitation_accepted', role: user.role, ...events.base(parties, context) });
        });
      } catch (err) {
        if (isTenantAuthError(err, 'email_taken')) throw emailTaken();
        throw err;
      }
      if (heldFirst) throw ssoRequired();
      if (setupFirst) throw await secondFactor.setupRequired(user, ['pwd']);
      return sessionTokens.respond(session, user, refreshToken, true);
    },
  };
}
