import type { RegisterResult } from './api-types.js';
import { type Clock, type RandomBytes, uuidv7 } from './clock.js';
import { parseEmail } from './email.js';
import { type FieldError, isTenantAuthError, TenantAuthError, validationError } from './errors.js';
import type { PasswordHasher } from './passwords/hasher.js';
import type { PasswordPolicy } from './passwords/policy.js';
import { parseInput, registerInputSchema } from './schemas.js';
import type { AuthEvent } from './sessions/events.js';
import type { SessionManager } from './sessions/session-manager.js';
import { initialSlug, slugify, withSlugSuffix } from './slug.js';
import type { TenantAuthStore } from './stores/types.js';
import type { RequestContext } from './types.js';

/** How many slugs registration tries before giving up (the first plus suffixed ones). */
const SLUG_ATTEMPTS = 5;

export interface RegistrationDeps {
  store: TenantAuthStore;
  hasher: PasswordHasher;
  policy: PasswordPolicy;
  sessions: SessionManager;
  clock: Clock;
  random: RandomBytes;
  emit: (event: AuthEvent) => void;
}

const emailTaken = () =>
  validationError([{ field: 'email', code: 'email_taken', message: 'This email is already registered.' }]);

/** @internal Registration: a tenant and its first user, atomically, then a session. */
export function createRegistration(deps: RegistrationDeps) {
  const { store, hasher, policy, sessions, clock, random, emit } = deps;

  return async function register(input: unknown, context: RequestContext = {}): Promise<RegisterResult> {
    const body = parseInput(registerInputSchema, input);
    const errors: FieldError[] = [];
    const email = parseEmail(body.email);
    if (!email.ok) errors.push(email.error);
    const tenantName = body.tenantName ?? (email.ok ? email.localPart : '');
    const firstSlug = initialSlug(tenantName, random);
    errors.push(
      ...policy.check(body.password, {
        ...(email.ok ? { email: email.email } : {}),
        tenantName,
        tenantSlug: slugify(tenantName),
      }),
    );
    if (!email.ok || errors.length > 0) throw validationError(errors);

    // Registration answers "email in use" by contract, so checking first reveals nothing new and
    // spares a bcrypt hash. The unique index still decides races.
    if (await store.findUserByEmail(email.email)) throw emailTaken();
    const passwordHash = await hasher.hash(body.password);

    let slug = firstSlug;
    for (let attempt = 1; ; attempt++) {
      const now = clock.now();
      const tenantId = uuidv7(clock, random);
      try {
        const { tenant, user } = await store.createTenantWithOwner({
          tenant: { id: tenantId, slug, name: tenantName, createdAt: now },
          user: { id: uuidv7(clock, random), tenantId, email: email.email, passwordHash, createdAt: now },
        });
        const result = await sessions.start(user, context, body.deviceInfo);
        emit({
          type: 'registered',
          userId: user.id,
          tenantId: tenant.id,
          sessionId: result.session.id,
          ipAddress: context.ipAddress ?? null,
        });
        return { ...result, tenant };
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
    }
  };
}
