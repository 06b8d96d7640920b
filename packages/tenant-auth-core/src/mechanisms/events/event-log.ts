import type { Logger } from '../../ports/logger.js';
import type { CompleteTenantAuthStores, CompleteTransactionStores } from '../../ports/tenant-auth-stores.js';
import { type AuthEvent, type AuthEventBase, requestFields } from '../../vocabulary/auth-event.js';
import type { Clock, RandomBytes } from '../../vocabulary/clock.js';
import { uuidv7 } from '../../vocabulary/ids.js';
import type { ActorType, AuditEventRecord, RequestContext } from '../../vocabulary/records.js';
import { webhookPayloadOf } from '../webhooks/webhook-payload.js';

/** @internal Who did what to whom: the parts of an event a service knows. */
export interface EventParties {
  tenantId: string;
  actorId: string | null;
  subjectId: string | null;
  sessionId: string | null;
  /** What `actorId` is; default `user`. */
  actorType?: ActorType;
}

/** @internal The audit record of an event of a tenant: its common fields, never its details. */
export function auditRecordOf(event: AuthEvent & { tenantId: string }): AuditEventRecord {
  return {
    id: event.id,
    tenantId: event.tenantId,
    type: event.type as AuditEventRecord['type'],
    at: event.at,
    actorId: event.actorId,
    actorType: event.actorType,
    subjectId: event.subjectId,
    sessionId: event.sessionId,
    ipAddress: event.ipAddress,
    userAgent: event.userAgent,
    requestId: event.requestId,
  };
}

/**
 * Appends an event to the audit log through `stores`, and queues it for the tenant's webhook endpoints
 * that subscribe to it, in the same transaction (docs/http-api.md, "Webhooks"); does nothing for an event
 * without a tenant.
 */
async function append(
  stores: CompleteTransactionStores,
  event: AuthEvent,
  newId: () => string,
): Promise<void> {
  if (event.tenantId === null) return;
  const record = auditRecordOf(event);
  await stores.auditEvents.append(record);
  await stores.webhooks.queueDeliveries(record, webhookPayloadOf(record), newId);
}

/**
 * @internal Where every auth event goes: into the audit log in the transaction of the change it records
 * (so it is never lost, and never recorded for a change that rolled back), then to `onEvent` once that
 * transaction has committed.
 */
export interface EventLog {
  /** A new event's id, time and request fields, with the parties given. */
  base(parties: EventParties, context: RequestContext): AuthEventBase;
  /** The base of an event that belongs to no tenant. */
  unattributed(context: RequestContext): Omit<
    AuthEventBase,
    'tenantId' | 'actorId' | 'subjectId' | 'sessionId' | 'actorType'
  > & {
    actorType: 'user';
    tenantId: null;
    actorId: null;
    subjectId: null;
    sessionId: null;
  };
  /**
   * Runs `fn` in one transaction; `record` stores an event in it. The events reach `onEvent` after the
   * commit, in order; none does when the transaction rolls back.
   */
  transaction<T>(
    fn: (tx: CompleteTransactionStores, record: (event: AuthEvent) => Promise<void>) => Promise<T>,
  ): Promise<T>;
  /** Stores an event that accompanies no other write, then tells `onEvent`. */
  record(event: AuthEvent): Promise<void>;
  /** Tells `onEvent` of an event that is not stored (it belongs to no tenant). */
  emit(event: AuthEvent): void;
}

/** @internal */
export function createEventLog(deps: {
  stores: CompleteTenantAuthStores;
  clock: Clock;
  random: RandomBytes;
  logger: Logger;
  onEvent: ((event: AuthEvent) => void) | undefined;
}): EventLog {
  const { stores, clock, random, logger, onEvent } = deps;
  const emit = (event: AuthEvent) => {
    if (!onEvent) return;
    try {
      onEvent(event);
    } catch (err) {
      // An event hook must not turn a successful login into a failure.
      logger.warn({ err, eventType: event.type }, 'tenant-auth: the onEvent hook threw; ignored');
    }
  };
  const newId = () => uuidv7(clock, random);
  const stamp = (context: RequestContext) => {
    const at = clock.now();
    return { id: uuidv7({ now: () => at }, random), at, ...requestFields(context) };
  };
  return {
    base: (parties, context) => ({ ...stamp(context), ...parties, actorType: parties.actorType ?? 'user' }),
    unattributed: (context) => ({
      ...stamp(context),
      actorType: 'user',
      tenantId: null,
      actorId: null,
      subjectId: null,
      sessionId: null,
    }),
    async transaction(fn) {
      const events: AuthEvent[] = [];
      const result = await stores.transaction((tx) =>
        fn(tx, async (event) => {
          await append(tx, event, newId);
          events.push(event);
        }),
      );
      for (const event of events) emit(event);
      return result;
    },
    async record(event) {
      // The event and its webhook deliveries commit together, or neither does.
      if (event.tenantId !== null) await stores.transaction((tx) => append(tx, event, newId));
      emit(event);
    },
    emit,
  };
}
