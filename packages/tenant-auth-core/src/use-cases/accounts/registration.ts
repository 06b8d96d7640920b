import type { EventLog } from '../../mechanisms/events/event-log.js';
import { parseEmail } from '../../mechanisms/inputs/email.js';
import { checkTenantName, optionalText } from '../../mechanisms/inputs/inputs.js';
import { initialSlug, slugify, withSlugSuffix } from '../../mechanisms/inputs/slug.js';
import type { PasswordHasher } from '../../mechanisms/passwords/hasher.js';
import type { PasswordPolicy } from '../../mechanisms/passwords/policy.js';
import { hashingOwner } from '../../mechanisms/rate-limit/client-ip-key.js';
import type { SessionTokens } from '../../mechanisms/sessions/session-tokens.js';
import { ssoRequired, ssoTenantOfAddress } from '../../mechanisms/sso/sso-hold.js';
import type { CompleteTenantAuthStores, CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import type { RegisterResult } from '../../vocabulary/claims.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import {
  type FieldError,
  isTenantAuthError,
  TenantAuthError,
  validationError,
} from '../../vocabulary/errors.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import type { RequestContext, Tenant, TenantRecord, UserRecord } from '../../vocabulary/records.js';

/**
 * Input of {@link TenantAuthAccounts.register}.
 *
 * @example
 * const input: RegisterInput = { email: 'ada@example.com', password: 'Correct-Horse-42', tenantName: 'Analytical Engines' };
 */
export interface RegisterInput {
  email: string;
  password: string;
  /** 1 to 100 characters once trimmed; the slug is derived from it. Default: the email's local part. */
  tenantName?: string | undefined;
  /** Free text naming the device (at most 200 characters). Default: a summary of the user agent. */
  deviceInfo?: string | undefined;
}

/** How many slugs registration tries before giving up (the first plus suffixed ones). */
const SLUG_ATTEMPTS = 5;

const emailTaken = () =>
  validationError([{ field: 'email', code: 'email_taken', message: 'This email is already registered.' }]);

/** @internal Registration: a tenant, its first user and their session, in one transaction. */
export function createRegistration(deps: {
  stores: CompleteTenantAuthStores;
  hasher: PasswordHasher;
  policy: PasswordPolicy;
  sessionTokens: SessionTokens;
  clock: Clock;
  random: RandomBytes;
  events: EventLog;
  /** Writes the verification email in the registration's transaction; `false` without mail. */
  enqueueVerification: (
    tx: CompleteTransactionStores,
    user: UserRecord,
    tenantName: string,
    context: RequestContext,
  ) => Promise<boolean>;
  /** Wakes mail delivery after a commit that wrote an email. */
  wakeMail: () => void;
}) {
  const { stores, hasher, policy, sessionTokens, clock, random, events, enqueueVerification, wakeMail } =
    deps;

  return async function register(
    input: RegisterInput,
    context: RequestContext = {},
  ): Promise<RegisterResult> {
    const errors: FieldError[] = [];
    const email = parseEmail(input?.email);
    if (!email.ok) errors.push(email.error);
    const name = checkTenantName(input?.tenantName);
    if (!name.ok) errors.push(name.error);
    const deviceInfo = optionalText(input?.deviceInfo, 'deviceInfo');
    if (!deviceInfo.ok) errors.push(deviceInfo.error);
    const tenantName = (name.ok ? name.value : undefined) ?? (email.ok ? email.localPart : '');
    if (typeof input?.password !== 'string') {
      errors.push({ field: 'password', code: 'required', message: 'A password is required.' });
    } else {
      errors.push(
        ...policy.check(input.password, {
          ...(email.ok ? { email: email.email } : {}),
          tenantName,
          tenantSlug: slugify(tenantName),
        }),
      );
    }
    if (!email.ok || errors.length > 0) throw validationError(errors);

    // Registration answers "email in use" by contract, so checking first reveals nothing new and
    // spares a bcrypt hash. The unique index still decides races.
    if (await stores.users.findByEmail(email.email)) throw emailTaken();
    // A domain a tenant verified and connected is that tenant's: no one opens a tenant of their own with
    // one of its addresses (docs/http-api.md, "Rules that change in 1.3").
    if ((await ssoTenantOfAddress(stores, email.email)) !== null) throw ssoRequired();
    const passwordHash = await hasher.hash(input.password, hashingOwner(context.ipAddress));

    let slug = initialSlug(tenantName, random);
    for (let attempt = 1; ; attempt++) {
      const now = clock.now();
      const tenant: Tenant = { id: uuidv7(clock, random), slug, name: tenantName, createdAt: now };
      const tenantRecord: TenantRecord = { ...tenant, requireMfa: false };
      const user: UserRecord = {
        id: uuidv7(clock, random),
        tenantId: tenant.id,
        email: email.email,
        passwordHash,
        role: 'owner',
        emailVerified: false,
        createdAt: now,
      };
      const { session, refreshToken } = await sessionTokens.newSession(
        user,
        context,
        deviceInfo.ok ? deviceInfo.value : undefined,
        ['pwd'],
      );
      let mailed = false;
      try {
        await events.transaction(async (tx, record) => {
          await tx.tenants.create(tenantRecord);
          await tx.users.create(user);
          await tx.sessions.create(session);
          mailed = await enqueueVerification(tx, user, tenant.name, context);
          const parties = {
            tenantId: tenant.id,
            actorId: user.id,
            subjectId: user.id,
            sessionId: session.id,
          };
          await record({ type: 'registered', ...events.base(parties, context) });
        });
      } catch (err) {
        if (isTenantAuthError(err, 'email_taken')) throw emailTaken();
        if (isTenantAuthError(err, 'slug_taken') && attempt < SLUG_ATTEMPTS) {
          slug = withSlugSuffix(slugify(tenantName), random);
          continue;
        }
        if (isTenantAuthError(err, 'slug_taken')) {
          throw new TenantAuthError('unavailable', 'Could not allocate a tenant slug; try again.', {
            cause: err,
            retryAfterSeconds: 1,
          });
        }
        throw err;
      }
      if (mailed) wakeMail();
      return { ...(await sessionTokens.respond(session, user, refreshToken, true)), tenant };
    }
  };
}
