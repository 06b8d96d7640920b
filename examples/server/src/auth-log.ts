import type { AuthEvent } from 'tenant-auth-core';
import { type Logger, withoutRedaction } from './logger.js';

/**
 * An `onEvent` hook for `createTenantAuth` that writes one log line per authentication event. Only the
 * listed fields are copied, so nothing else a future event might carry reaches the log unnoticed. The
 * request id and the client IP are the event's own: tenant-auth-koa passes both to every call it makes.
 *
 * @example createTenantAuth({ ..., onEvent: authEventLogger(logger) });
 */
export function authEventLogger(logger: Logger): (event: AuthEvent) => void {
  // Only the fields below, all ids, reasons and counts: the line needs no redaction.
  const out = withoutRedaction(logger);
  return (event) => {
    const line = {
      event: event.type,
      requestId: event.requestId,
      tenantId: event.tenantId,
      actorId: event.actorId,
      subjectId: event.subjectId,
      sessionId: event.sessionId,
      ip: event.ipAddress,
      ...(event.type === 'login_failed' ? { reason: event.reason } : {}),
      ...(event.type === 'sessions_revoked' ? { count: event.count } : {}),
      ...(event.type === 'rate_limited' ? { budget: event.budget } : {}),
      ...(event.type === 'member_role_changed' ? { role: event.role, previousRole: event.previousRole } : {}),
      ...(event.type === 'invitation_created' || event.type === 'invitation_accepted'
        ? { role: event.role }
        : {}),
    };
    if (event.type === 'replay_detected') out.warn(line, 'refresh token replay detected; session revoked');
    else if (event.type === 'login_failed') out.info(line, 'login failed');
    else out.info(line, `auth ${event.type}`);
  };
}
