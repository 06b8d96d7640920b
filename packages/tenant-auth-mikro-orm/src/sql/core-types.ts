// The record and store types of tenant-auth-core (store-kit, and the vocabulary of the main entry) that the stores of this package implement.

export type { Role } from 'tenant-auth-core';
export type {
  AuditEventQuery,
  AuditEventRecord,
  AuditEventStore,
  OneTimeTokenKind,
  OneTimeTokenRecord,
  OneTimeTokenStore,
  OutboxCounts,
  OutboxMessageRecord,
  OutboxStore,
} from 'tenant-auth-core/store-kit';
