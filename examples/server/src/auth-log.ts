import type { AuthEvent } from 'tenant-auth-core';
import type { Logger } from './logger.js';
import { currentRequest } from './request-log.js';

/**
 * An `onEvent` hook for `createTenantAuth` that writes one log line per authentication event. Only the
 * listed fields are copied, so nothing else a future event might carry reaches the log unnoticed. The
 * request id and, when the event has none, the client IP come from the request being handled.
 *
 * @example createTenantAuth({ ..., onEvent: authEventLogger(logger) });
 */
export function authEventLogger(logger: Logger): (event: AuthEvent) => void {
  return (event) => {
    const request = currentRequest.getStore();
    const line = {
      event: event.type,
      requestId: request?.requestId,
      userId: event.userId,
      tenantId: event.tenantId,
      sessionId: event.sessionId,
      ip: event.ipAddress ?? request?.ip,
      reason: event.reason,
      count: event.count,
    };
    if (event.type === 'replay_detected') logger.warn(line, 'refresh token replay detected; session revoked');
    else if (event.type === 'login_failed') logger.info(line, 'login failed');
    else logger.info(line, `auth ${event.type}`);
  };
}
