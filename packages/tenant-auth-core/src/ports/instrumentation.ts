/**
 * What happened to one delivery attempt: `delivered`, `retry` (failed; tried again later) or `dead`
 * (failed for the last time, or could not be opened).
 *
 * @example
 * const onMailDelivery = ({ template, outcome }: MailDeliveryOutcome) => mailDeliveries.inc({ template, outcome });
 */
export interface MailDeliveryOutcome {
  template: string;
  outcome: 'delivered' | 'retry' | 'dead';
}

/**
 * The units of work tenant-auth wraps in a span.
 *
 * @example
 * const name: SpanName = 'tenant-auth.login';
 */
export type SpanName =
  | 'tenant-auth.register'
  | 'tenant-auth.login'
  | 'tenant-auth.refresh'
  | 'tenant-auth.password.hash'
  | 'tenant-auth.password.verify';

/**
 * One password-hashing operation: how long it waited for a slot of the bounded pool, and how long
 * bcrypt ran.
 *
 * @example
 * const onPasswordHashing = (m: PasswordHashingMeasurement) => hashWait.observe({ operation: m.operation }, m.waitSeconds);
 */
export interface PasswordHashingMeasurement {
  operation: 'hash' | 'verify';
  waitSeconds: number;
  durationSeconds: number;
}

/**
 * How the check of a presented API key ended: `accepted`, or why not (`malformed`: not a `tak_` secret
 * at all; `unknown`; `expired`; `revoked`). Never the secret itself.
 *
 * @example
 * const onApiKeyCheck = (outcome: ApiKeyCheckOutcome) => apiKeyChecks.inc({ outcome });
 */
export type ApiKeyCheckOutcome = 'accepted' | 'malformed' | 'unknown' | 'expired' | 'revoked';

/**
 * One webhook delivery attempt (1.3): how it ended (`disabled`: it failed and disabled its endpoint), and
 * its lag, the seconds from the event's commit to this attempt (the delay of a first attempt; a retry's
 * includes its schedule).
 *
 * @example
 * const onWebhookDelivery = ({ outcome, attempt, lagSeconds }: WebhookDeliveryOutcome) => {
 *   deliveries.inc({ outcome });
 *   if (attempt === 1) lag.observe(lagSeconds);
 * };
 */
export interface WebhookDeliveryOutcome {
  outcome: 'succeeded' | 'failed' | 'disabled';
  /** Which attempt this was (1 for the first). */
  attempt: number;
  lagSeconds: number;
}

/**
 * Hooks for tracing and metrics (the `instrumentation` option of `createTenantAuth`), so an application
 * feeds its own OpenTelemetry tracer and Prometheus registry: core depends on neither. Auth events
 * (logins, refreshes, replays, rate-limit refusals) come through `onEvent`; gauges read
 * `auth.stats()`. Every hook is optional; one that throws is ignored.
 *
 * @example
 * import { openTelemetrySpan } from 'tenant-auth-koa';
 * const instrumentation: Instrumentation = {
 *   span: openTelemetrySpan(),
 *   onPasswordHashing: (m) => hashWait.observe({ operation: m.operation }, m.waitSeconds),
 *   onMailDelivery: ({ template, outcome }) => deliveries.inc({ template, outcome }),
 * };
 */
export interface Instrumentation {
  /** Runs `fn` inside a span named `name` (OpenTelemetry: `tracer.startActiveSpan`). */
  span?: <T>(name: SpanName, fn: () => Promise<T>) => Promise<T>;
  onPasswordHashing?: (measurement: PasswordHashingMeasurement) => void;
  onMailDelivery?: (outcome: MailDeliveryOutcome) => void;
  /** Once per API key presented (a cached key too): how its check ended. */
  onApiKeyCheck?: (outcome: ApiKeyCheckOutcome) => void;
  /** Once per webhook delivery attempt (1.3). */
  onWebhookDelivery?: (outcome: WebhookDeliveryOutcome) => void;
}

/** @internal The hooks with no-op defaults, each guarded so a throwing hook cannot break auth. */
export interface ResolvedInstrumentation {
  span: <T>(name: SpanName, fn: () => Promise<T>) => Promise<T>;
  onPasswordHashing: (measurement: PasswordHashingMeasurement) => void;
  onMailDelivery: (outcome: MailDeliveryOutcome) => void;
  onApiKeyCheck: (outcome: ApiKeyCheckOutcome) => void;
  onWebhookDelivery: (outcome: WebhookDeliveryOutcome) => void;
}

function guarded<A>(hook: ((arg: A) => void) | undefined): (arg: A) => void {
  if (!hook) return () => {};
  return (arg) => {
    try {
      hook(arg);
    } catch {
      // Metrics must not break authentication.
    }
  };
}

/** @internal */
export function resolveInstrumentation(given: Instrumentation | undefined): ResolvedInstrumentation {
  return {
    span: given?.span ?? ((_name, fn) => fn()),
    onPasswordHashing: guarded(given?.onPasswordHashing),
    onMailDelivery: guarded(given?.onMailDelivery),
    onApiKeyCheck: guarded(given?.onApiKeyCheck),
    onWebhookDelivery: guarded(given?.onWebhookDelivery),
  };
}
