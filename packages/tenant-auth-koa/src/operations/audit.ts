import type { AuditEvent, AuditEventListInput } from 'tenant-auth-core';
import { type AuditEventJson, auditEventPageSchema } from '../http-contract.js';
import { toAuditEventJson } from '../serialize.js';
import { defineOperation, type QueryOf, type Same } from './define.js';

// Every parameter is core's to validate, as sent: a parameter renamed on either side fails to compile here.
true satisfies Same<keyof QueryOf<'auditEventQuery'>, keyof AuditEventListInput>;
// An event is answered with every field of core's but its tenant (the caller's): a field added to core's
// event fails to compile here until the contract answers it (or says why not). Its `type` and `actorType`
// are core's lists: contract-parts.ts ties them.
true satisfies Same<keyof AuditEventJson, Exclude<keyof AuditEvent, 'tenantId'>>;

/** @internal The audit log of the caller's tenant. */
export const AUDIT_OPERATIONS = [
  defineOperation({
    id: 'listAuditEvents',
    method: 'GET',
    path: '/tenants/me/audit-events',
    caller: 'admin',
    apiKeys: true,
    budget: 'general',
    tag: 'audit',
    summary: "The tenant's audit log, newest first.",
    description: 'Owners and admins.',
    query: 'auditEventQuery',
    success: { status: 200, body: auditEventPageSchema, description: 'A page of events.' },
    problems: ['validation_failed'],
    handler: async ({ caller, query }, { auth }) => {
      const page = await auth.listAuditEvents(caller, query);
      return { events: page.events.map(toAuditEventJson), next: page.next };
    },
  }),
];
