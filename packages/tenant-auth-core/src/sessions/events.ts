/**
 * Authentication events, for audit logs. They carry ids and the client address, never a password, a
 * token or a hash.
 */
export interface AuthEvent {
  type:
    | 'registered'
    | 'login_succeeded'
    | 'login_failed'
    | 'refreshed'
    | 'refresh_reissued'
    | 'replay_detected'
    | 'logout'
    | 'session_revoked'
    | 'sessions_revoked';
  userId?: string;
  tenantId?: string;
  sessionId?: string;
  ipAddress?: string | null;
  /** `login_failed`: why, for operators (`unknown_email` is never told to the client). */
  reason?: string;
  /** `sessions_revoked`: how many. */
  count?: number;
}

/** @internal Calls the hook without letting a throwing listener break authentication. */
export function emitter(onEvent: ((event: AuthEvent) => void) | undefined): (event: AuthEvent) => void {
  if (!onEvent) return () => {};
  return (event) => {
    try {
      onEvent(event);
    } catch {
      // An audit hook must not turn a successful login into a failure.
    }
  };
}
