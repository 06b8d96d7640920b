import { actingPrincipal } from '../../mechanisms/authorization.js';
import type { Services } from '../../mechanisms/services.js';
import type { Principal } from '../../vocabulary/claims.js';
import { type FieldError, validationError } from '../../vocabulary/errors.js';
import { normalizeUuid } from '../../vocabulary/ids.js';
import { AUDIT_EVENT_TYPES, type AuditEvent, type AuditEventType } from '../../vocabulary/records.js';

/** @internal Page sizes of the audit log. */
export const AUDIT_PAGE = { min: 1, max: 200, default: 50 } as const;

/**
 * What `TenantAuth.listAuditEvents` takes. Values may come straight from a query string: they are
 * validated here.
 *
 * @example
 * const query: AuditEventListInput = { limit: 50, type: 'login_failed', before: page.next ?? undefined };
 */
export interface AuditEventListInput {
  /** 1 to 200; default 50. A numeric string is accepted. */
  limit?: number | string | undefined;
  /** The `next` cursor of the previous page. */
  before?: string | undefined;
  type?: string | undefined;
  /** Only events this user did or underwent. */
  userId?: string | undefined;
}

/**
 * One page of the audit log, newest first.
 *
 * @example
 * const { events, next }: AuditEventPage = await auth.listAuditEvents(claims, { limit: 50 });
 */
export interface AuditEventPage {
  events: AuditEvent[];
  /** The cursor of the next (older) page; `null` on the last page. */
  next: string | null;
}

const invalid = (field: string, message: string): FieldError => ({ field, code: 'invalid_value', message });

/** A cursor is the id of the last event of a page, base64url-encoded: opaque to clients. */
const encodeCursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
const decodeCursor = (cursor: string) =>
  /^[A-Za-z0-9_-]{1,64}$/.test(cursor)
    ? normalizeUuid(Buffer.from(cursor, 'base64url').toString('utf8'))
    : null;

/** @internal The audit log of the caller's tenant, for its administrators. */
export function createAuditLog(services: Pick<Services, 'stores' | 'clock'>) {
  const { stores, clock } = services;
  return async function listAuditEvents(
    principal: Principal,
    input: AuditEventListInput = {},
  ): Promise<AuditEventPage> {
    await actingPrincipal(stores, principal, clock.now(), 'admin');
    const errors: FieldError[] = [];
    const rawLimit = input.limit ?? AUDIT_PAGE.default;
    const limit = typeof rawLimit === 'string' && /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : rawLimit;
    if (
      typeof limit !== 'number' ||
      !Number.isInteger(limit) ||
      limit < AUDIT_PAGE.min ||
      limit > AUDIT_PAGE.max
    ) {
      errors.push(invalid('limit', `limit must be an integer from ${AUDIT_PAGE.min} to ${AUDIT_PAGE.max}.`));
    }
    const before =
      input.before === undefined
        ? undefined
        : typeof input.before === 'string'
          ? decodeCursor(input.before)
          : null;
    if (before === null) errors.push(invalid('before', 'before must be the next cursor of a previous page.'));
    const type = input.type;
    if (type !== undefined && !(AUDIT_EVENT_TYPES as readonly unknown[]).includes(type)) {
      errors.push(invalid('type', 'type must be one of the audit event types.'));
    }
    const userId = input.userId === undefined ? undefined : normalizeUuid(input.userId);
    if (userId === null) errors.push(invalid('userId', 'userId must be a user id.'));
    if (errors.length > 0) throw validationError(errors);

    const pageSize = limit as number;
    const events = await stores.auditEvents.list(principal.tenantId, {
      limit: pageSize + 1,
      before: before ?? undefined,
      type: type as AuditEventType | undefined,
      userId: userId ?? undefined,
    });
    // A record a 1.1 store kept has no `actorType`: a user acted (see AuditEventRecord).
    const page = events
      .slice(0, pageSize)
      .map((event) => ({ ...event, actorType: event.actorType ?? 'user' }));
    const last = page.at(-1);
    return { events: page, next: events.length > pageSize && last ? encodeCursor(last.id) : null };
  };
}
