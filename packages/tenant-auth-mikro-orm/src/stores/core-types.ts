// The record and store types of tenant-auth-core/store-kit that the stores of this package implement.
export type {
  AuditEvent,
  AuditEventQuery,
  AuditEventStore,
  OneTimeToken,
  OneTimeTokenKind,
  OneTimeTokenStore,
  OutboxCounts,
  OutboxMessage,
  OutboxStore,
  Role,
} from 'tenant-auth-core/store-kit';
