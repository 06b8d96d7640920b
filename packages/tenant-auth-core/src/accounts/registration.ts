import type { RegisterResult } from '../claims.js';
import type { Clock, RandomBytes } from '../clock.js';
import { parseEmail } from '../email.js';
import { type FieldError, isTenantAuthError, TenantAuthError, validationError } from '../errors.js';
import type { EventLog } from '../events/event-log.js';
import { uuidv7 } from '../ids.js';
import type { PasswordHasher } from '../passwords/hasher.js';
import type { PasswordPolicy } from '../passwords/policy.js';
import { hashingOwner } from '../rate-limit/client-ip-key.js';
import type { RequestContext, Tenant, TenantRecord, UserRecord } from '../records.js';
import type { SessionTokens } from '../sessions/session-tokens.js';
import { initialSlug, slugify, withSlugSuffix } from '../slug.js';
import type { TenantAuthStores, TransactionStores } from '../stores/tenant-auth-stores.js';
import { checkTenantName, optionalText } from './inputs.js';

/**
 * Input of {@link TenantAuth.register}.
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
  stores: TenantAuthStores;
  hasher: PasswordHasher;
  policy: PasswordPolicy;
  sessionTokens: SessionTokens;
  clock: Clock;
  random: RandomBytes;
  events: EventLog;
  /** Writes the verification email in the registration's transaction; `false` without mail. */
  enqueueVerification: (
    tx: TransactionStores,
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
