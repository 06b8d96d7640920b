import type { Services } from '../../mechanisms/services.js';
import type { Principal } from '../../vocabulary/claims.js';
import { type AuditEventListInput, type AuditEventPage, createAuditLog } from './audit-log.js';

/**
 * The audit log's part of `TenantAuth` (docs/http-api.md, "Audit log").
 *
 * @example
 * const audit: TenantAuthAudit = auth;
 * const { events, next } = await audit.listAuditEvents(claims, { limit: 50 });
 */
export interface TenantAuthAudit {
  /** A page of the caller's tenant's audit log, newest first (admin). Fails with `validation_failed`. */
  listAuditEvents(principal: Principal, input?: AuditEventListInput): Promise<AuditEventPage>;
}

/** @internal The audit log of a tenant. */
export function createAudit(services: Services): TenantAuthAudit {
  return { listAuditEvents: createAuditLog(services) };
}
