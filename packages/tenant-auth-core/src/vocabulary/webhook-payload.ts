import { createHash } from 'node:crypto';
import type { AuditEventRecord } from './records.js';

/**
 * The body of a delivery (docs/http-api.md, "Webhooks"): the type, the time, and the event as
 * `GET /tenants/me/audit-events` shows it. A store that appends an event itself queues this payload.
 *
 * @example
 * const payload = webhookPayloadOf(event);
 */
export function webhookPayloadOf(event: AuditEventRecord): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.at.toISOString(),
    data: {
      id: event.id,
      type: event.type,
      at: event.at.toISOString(),
      actorId: event.actorId,
      actorType: event.actorType ?? 'user',
      subjectId: event.subjectId,
      sessionId: event.sessionId,
      ipAddress: event.ipAddress,
      userAgent: event.userAgent,
      requestId: event.requestId,
    },
  });
}

/**
 * The id of the delivery of an event to an endpoint, for a store that queues the deliveries of an event
 * it appends itself (the `event` of `sessions.rotate`, `rotateCurrent`, `reauthenticate`): the event id's
 * time and version (a UUIDv7: deliveries sort by time), then 62 bits of MD5 of `eventId|endpointId`
 * (hex: `md5(event_id || '|' || endpoint_id)` in SQL gives the same id).
 *
 * @example
 * const id = webhookDeliveryIdOf(event.id, endpoint.id);
 */
export function webhookDeliveryIdOf(eventId: string, endpointId: string): string {
  const hash = createHash('md5').update(`${eventId}|${endpointId}`).digest('hex');
  return `${eventId.slice(0, 19)}8${hash.slice(0, 3)}-${hash.slice(3, 15)}`;
}
