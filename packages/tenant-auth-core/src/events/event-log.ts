import type { Clock, RandomBytes } from '../clock.js';
import { uuidv7 } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ActorType, AuditEventRecord, RequestContext } from '../records.js';
import type { TenantAuthStores, TransactionStores } from '../stores/tenant-auth-stores.js';
import { type AuthEvent, type AuthEventBase, requestFields } from './auth-event.js';

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

/** Appends an event to the audit log through `stores`; does nothing for one without a tenant. */
function append(stores: TransactionStores, event: AuthEvent): Promise<void> {
  if (event.tenantId === null) return Promise.resolve();
  return stores.auditEvents.append(auditRecordOf(event));
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
    fn: (tx: TransactionStores, record: (event: AuthEvent) => Promise<void>) => Promise<T>,
  ): Promise<T>;
  /** Stores an event that accompanies no other write, then tells `onEvent`. */
  record(event: AuthEvent): Promise<void>;
  /** Tells `onEvent` of an event that is not stored (it belongs to no tenant). */
  emit(event: AuthEvent): void;
}

/** @internal */
export function createEventLog(deps: {
  stores: TenantAuthStores;
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
          await append(tx, event);
          events.push(event);
        }),
      );
      for (const event of events) emit(event);
      return result;
    },
    async record(event) {
      await append(stores, event);
      emit(event);
    },
    emit,
  };
}
