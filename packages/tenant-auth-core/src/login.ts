import type { AuthResult } from './api-types.js';
import { normalizeEmail } from './email.js';
import { TenantAuthError } from './errors.js';
import type { PasswordHasher } from './passwords/hasher.js';
import type { LoginThrottle } from './rate-limit/login-throttle.js';
import { loginInputSchema, parseInput } from './schemas.js';
import type { AuthEvent } from './sessions/events.js';
import type { SessionManager } from './sessions/session-manager.js';
import type { TenantAuthStore } from './stores/types.js';
import type { RequestContext } from './types.js';

export interface LoginDeps {
  store: TenantAuthStore;
  hasher: PasswordHasher;
  sessions: SessionManager;
  /** A bcrypt hash of a random password at the configured cost, compared when the email is unknown. */
  dummyHash: () => Promise<string>;
  throttle: LoginThrottle | undefined;
  emit: (event: AuthEvent) => void;
}

/** @internal Login: one code path, one error and the same work whether or not the email exists. */
export function createLogin(deps: LoginDeps) {
  const { store, hasher, sessions, dummyHash, throttle, emit } = deps;

  return async function login(input: unknown, context: RequestContext = {}): Promise<AuthResult> {
    const body = parseInput(loginInputSchema, input);
    const email = normalizeEmail(body.email);
    // Counted before the password check, atomically: parallel guesses cannot all pass a read-only check.
    await throttle?.attempt(email);
    const user = await store.findUserByEmail(email);
    const ok = await hasher.verify(body.password, user?.passwordHash ?? (await dummyHash()));
    if (!user || !ok) {
      emit({
        type: 'login_failed',
        ...(user ? { userId: user.id, tenantId: user.tenantId } : {}),
        reason: user ? 'wrong_password' : 'unknown_email',
        ipAddress: context.ipAddress ?? null,
      });
      throw new TenantAuthError('invalid_credentials', 'The email or password is incorrect.');
    }
    const result = await sessions.start(user, context, body.deviceInfo);
    emit({
      type: 'login_succeeded',
      userId: user.id,
      tenantId: user.tenantId,
      sessionId: result.session.id,
      ipAddress: context.ipAddress ?? null,
    });
    return result;
  };
}
