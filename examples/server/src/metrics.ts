import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type {
  ApiKeyCheckOutcome,
  AuthEvent,
  MailDeliveryOutcome,
  OutboxCounts,
  PasswordHashingMeasurement,
  RateLimitBudget,
  TenantAuth,
  WebhookDeliveryOutcome,
} from 'tenant-auth-core';
import type { ResponseInfo } from 'tenant-auth-koa';
import { requestMetrics } from './request-metrics.js';

/** How long a scrape waits for the outbox counts before reporting them as unknown (NaN). */
const OUTBOX_READ_TIMEOUT_MS = 1000;

const LOGIN_OUTCOMES = ['success', 'wrong_password', 'unknown_email', 'throttled'] as const;
const REFRESH_OUTCOMES = ['rotated', 'reissued', 'replay', 'invalid'] as const;
const BUDGETS: readonly RateLimitBudget[] = ['strict', 'general', 'network', 'account', 'mailbox'];
/**
 * The answers of the second factor counted by `tenant_auth_mfa_verifications_total`: the route templates
 * (under the server's prefix) that check a code, and the outcome each status stands for. Taken from the
 * answer, so the counter holds an operation and an outcome, never a token, a code or a user.
 */
const MFA_OPERATION_OF_ROUTE: Readonly<Record<string, string>> = {
  '/api/v1/auth/mfa/verify': 'verify',
  '/api/v1/auth/mfa/totp/confirm': 'confirm',
  '/api/v1/auth/reauthenticate': 'reauthenticate',
};
const MFA_OUTCOME_OF_STATUS: Readonly<Record<number, string>> = {
  200: 'success',
  400: 'refused',
  401: 'invalid_token',
  403: 'refused',
  429: 'throttled',
};
const MFA_OUTCOMES = ['success', 'refused', 'invalid_token', 'throttled'] as const;
const API_KEY_OUTCOMES: readonly ApiKeyCheckOutcome[] = [
  'accepted',
  'malformed',
  'unknown',
  'expired',
  'revoked',
];

/**
 * `tenant_auth_scim_requests_total`: the SCIM routes (under any mount path ending in `/scim/v2`) by
 * operation, from the route template and the method alone; the outcome from the status. Never a token, a
 * tenant or a user in a label.
 */
const SCIM_ROUTE = /\/scim\/v2\/(ServiceProviderConfig|ResourceTypes|Schemas|Users|Groups)(\/:id)?$/;
const SCIM_OPERATION_OF: Readonly<Record<string, string>> = {
  'GET Users': 'list_users',
  'POST Users': 'create_user',
  'GET Users/:id': 'get_user',
  'PUT Users/:id': 'replace_user',
  'PATCH Users/:id': 'patch_user',
  'DELETE Users/:id': 'delete_user',
  'GET Groups': 'list_groups',
  'POST Groups': 'create_group',
  'GET Groups/:id': 'get_group',
  'PUT Groups/:id': 'replace_group',
  'PATCH Groups/:id': 'patch_group',
  'DELETE Groups/:id': 'delete_group',
  'GET ServiceProviderConfig': 'discovery',
  'GET ResourceTypes': 'discovery',
  'GET Schemas': 'discovery',
};
const SCIM_OUTCOMES = [
  'success',
  'invalid',
  'invalid_token',
  'not_found',
  'conflict',
  'throttled',
  'error',
] as const;

/** The outcome label of a SCIM answer's status. */
function scimOutcomeOf(status: number): (typeof SCIM_OUTCOMES)[number] {
  if (status < 400) return 'success';
  if (status === 401) return 'invalid_token';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'throttled';
  return status >= 500 ? 'error' : 'invalid';
}

/** Events left out of `tenant_auth_events_total`: their count tells known addresses from unknown ones. */
const NOT_COUNTED: ReadonlySet<string> = new Set(['password_reset_requested']);

/** The outcome label of `tenant_auth_refreshes_total` for each refresh event. */
const REFRESH_OUTCOME_OF: Partial<Record<AuthEvent['type'], (typeof REFRESH_OUTCOMES)[number]>> = {
  refreshed: 'rotated',
  refresh_reissued: 'reissued',
  replay_detected: 'replay',
  refresh_failed: 'invalid',
};

/**
 * The Prometheus metrics of the reference server, in a registry of its own. Each hook feeds one source:
 * `onEvent` core's auth events, `onPasswordHashing` and `onMailDelivery` core's instrumentation,
 * `onResponse` tenant-auth-koa's response hook (and the server's own routes); gauges are read from
 * `auth` when scraped. The names and labels are listed in the server's README.
 */
export interface ServerMetrics {
  readonly registry: Registry;
  /** For core's `onEvent`: logins, refreshes, rate-limit refusals and every event by type. */
  onEvent(event: AuthEvent): void;
  /** For core's `instrumentation.onPasswordHashing`. */
  onPasswordHashing(measurement: PasswordHashingMeasurement): void;
  /** For core's `instrumentation.onMailDelivery`. */
  onMailDelivery(outcome: MailDeliveryOutcome): void;
  /** For core's `instrumentation.onApiKeyCheck`: every API key presented, by outcome. */
  onApiKeyCheck(outcome: ApiKeyCheckOutcome): void;
  /** For core's `instrumentation.onWebhookDelivery`: attempts by outcome, and the lag of first attempts. */
  onWebhookDelivery(outcome: WebhookDeliveryOutcome): void;
  /** For tenant-auth-koa's `onResponse`, and the server's own routes by fixed names. */
  onResponse(info: ResponseInfo): void;
  /** Reads the hashing pool and the outbox of `auth` at each scrape. */
  observe(auth: Pick<TenantAuth, 'stats' | 'outboxCounts'>): void;
  /** The Prometheus text of every metric, and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/**
 * Creates the server's metrics. `defaultMetrics` (on by default) adds prom-client's process metrics:
 * memory, CPU, event-loop lag, garbage collection, handles.
 *
 * @example
 * const metrics = createServerMetrics();
 * const auth = createTenantAuth({ ..., onEvent: metrics.onEvent, instrumentation: { onPasswordHashing: metrics.onPasswordHashing } });
 * metrics.observe(auth);
 * const { contentType, body } = await metrics.scrape();
 */
export function createServerMetrics(options: { defaultMetrics?: boolean } = {}): ServerMetrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  // Every request feeds these two: kept as plain numbers, read by the registry when it is scraped.
  const observeRequest = requestMetrics({
    registry,
    counter: {
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template (unmatched for no route), method and status.',
    },
    histogram: {
      name: 'http_request_duration_seconds',
      help: 'Time to decide the answer of an HTTP request, by route template, method and status.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    },
  });
  const events = new Counter({
    name: 'tenant_auth_events_total',
    help: 'Authentication events (the audit log event types but password_reset_requested, refresh_failed and rate_limited), by type.',
    labelNames: ['type'] as const,
    registers,
  });
  const logins = new Counter({
    name: 'tenant_auth_logins_total',
    help: 'Login attempts that reached the credential check, by outcome: success, wrong_password, unknown_email, throttled.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const refreshes = new Counter({
    name: 'tenant_auth_refreshes_total',
    help: 'Refresh attempts by outcome: rotated, reissued (a race within the grace period), replay (the session was revoked), invalid.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: 'tenant_auth_rate_limited_total',
    help: 'Requests refused by a rate limit, by the budget that refused them.',
    labelNames: ['budget'] as const,
    registers,
  });
  const hashingWait = new Histogram({
    name: 'tenant_auth_password_hashing_wait_seconds',
    help: 'Time a password hash or verification waited for a slot of the bounded hashing pool.',
    labelNames: ['operation'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const hashingDuration = new Histogram({
    name: 'tenant_auth_password_hashing_duration_seconds',
    help: 'Time bcrypt ran for one password hash or verification.',
    labelNames: ['operation'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const mailDeliveries = new Counter({
    name: 'tenant_auth_mail_deliveries_total',
    help: 'Outbox delivery attempts by template and outcome: delivered, retry (failed, will be retried), dead (given up).',
    labelNames: ['template', 'outcome'] as const,
    registers,
  });
  const webhookDeliveries = new Counter({
    name: 'tenant_auth_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: succeeded, failed (will be retried or given up), disabled (failed and disabled its endpoint).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const webhookLag = new Histogram({
    name: 'tenant_auth_webhook_delivery_lag_seconds',
    help: "Time from an event's commit to the first attempt of its webhook delivery.",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const mfaAnswers = new Counter({
    name: 'tenant_auth_mfa_verifications_total',
    help: 'Second-factor answers (POST /auth/mfa/verify, /auth/mfa/totp/confirm, /auth/reauthenticate) by operation and outcome: success, refused (a wrong code or password), invalid_token (an unknown, used or expired mfaToken), throttled.',
    labelNames: ['operation', 'outcome'] as const,
    registers,
  });
  const scimRequests = new Counter({
    name: 'tenant_auth_scim_requests_total',
    help: "SCIM requests of the tenants' directories by operation (list_users, create_user, get_user, replace_user, patch_user, delete_user, the same for groups, discovery) and outcome: success, invalid (400, 413, 415), invalid_token, not_found, conflict (409), throttled, error (5xx).",
    labelNames: ['operation', 'outcome'] as const,
    registers,
  });
  const apiKeyChecks = new Counter({
    name: 'tenant_auth_api_key_checks_total',
    help: 'API keys presented (Authorization: Bearer tak_…) by outcome: accepted, malformed, unknown, expired, revoked.',
    labelNames: ['outcome'] as const,
    registers,
  });
  // One child per outcome, made once: a key check runs on every request a key makes.
  const apiKeyCheckOf = new Map(
    API_KEY_OUTCOMES.map((outcome) => [outcome, apiKeyChecks.labels({ outcome })]),
  );
  for (const child of apiKeyCheckOf.values()) child.inc(0);
  for (const operation of Object.values(MFA_OPERATION_OF_ROUTE))
    for (const outcome of MFA_OUTCOMES) mfaAnswers.inc({ operation, outcome }, 0);
  for (const operation of new Set(Object.values(SCIM_OPERATION_OF)))
    for (const outcome of SCIM_OUTCOMES) scimRequests.inc({ operation, outcome }, 0);
  for (const outcome of LOGIN_OUTCOMES) logins.inc({ outcome }, 0);
  for (const outcome of REFRESH_OUTCOMES) refreshes.inc({ outcome }, 0);
  for (const budget of BUDGETS) rateLimited.inc({ budget }, 0);

  let source: Pick<TenantAuth, 'stats' | 'outboxCounts'> | undefined;
  const hashing = (key: 'queued' | 'active') => source?.stats().hashing[key] ?? 0;
  new Gauge({
    name: 'tenant_auth_password_hashing_queued',
    help: 'Password hashes and verifications waiting for a slot of the bounded hashing pool (queue depth).',
    registers,
    collect() {
      this.set(hashing('queued'));
    },
  });
  new Gauge({
    name: 'tenant_auth_password_hashing_active',
    help: 'Password hashes and verifications running now.',
    registers,
    collect() {
      this.set(hashing('active'));
    },
  });

  // One read of the outbox per scrape, shared by its gauges (collected concurrently).
  let outboxRead: Promise<OutboxCounts | null> | undefined;
  const readOutbox = (): Promise<OutboxCounts | null> => {
    outboxRead ??= new Promise<OutboxCounts | null>((resolve) => {
      if (!source) return resolve(null);
      const timer = setTimeout(() => resolve(null), OUTBOX_READ_TIMEOUT_MS);
      timer.unref();
      source.outboxCounts().then(
        (counts) => {
          clearTimeout(timer);
          resolve(counts);
        },
        () => {
          clearTimeout(timer);
          resolve(null);
        },
      );
    }).finally(() => {
      outboxRead = undefined;
    });
    return outboxRead;
  };
  const outboxGauge = (name: string, help: string, value: (counts: OutboxCounts) => number) =>
    new Gauge({
      name,
      help: `${help} Read at scrape time; NaN when the database did not answer.`,
      registers,
      async collect() {
        const counts = await readOutbox();
        this.set(counts ? value(counts) : Number.NaN);
      },
    });
  outboxGauge(
    'tenant_auth_outbox_pending_messages',
    'Emails in the outbox not yet delivered.',
    (c) => c.pending,
  );
  outboxGauge(
    'tenant_auth_outbox_dead_messages',
    'Emails given up on and not yet cleaned up.',
    (c) => c.dead,
  );
  outboxGauge(
    'tenant_auth_outbox_oldest_pending_age_seconds',
    'Age of the oldest email not yet delivered (0 when none is pending).',
    (c) => (c.oldestPendingAt ? Math.max(0, (Date.now() - c.oldestPendingAt.getTime()) / 1000) : 0),
  );

  return {
    registry,
    onEvent(event) {
      // Counted nowhere: it happens for known addresses only, so its counter would answer "does this
      // address have an account?" to anyone who reads /metrics around a "forgot password" of theirs.
      if (NOT_COUNTED.has(event.type)) return;
      events.inc({ type: event.type });
      if (event.type === 'login_succeeded') logins.inc({ outcome: 'success' });
      else if (event.type === 'login_failed') logins.inc({ outcome: event.reason });
      else if (event.type === 'rate_limited') rateLimited.inc({ budget: event.budget });
      const refresh = REFRESH_OUTCOME_OF[event.type];
      if (refresh) refreshes.inc({ outcome: refresh });
    },
    onPasswordHashing({ operation, waitSeconds, durationSeconds }) {
      hashingWait.observe({ operation }, waitSeconds);
      hashingDuration.observe({ operation }, durationSeconds);
    },
    onMailDelivery({ template, outcome }) {
      mailDeliveries.inc({ template, outcome });
    },
    onApiKeyCheck(outcome) {
      apiKeyCheckOf.get(outcome)?.inc();
    },
    onWebhookDelivery({ outcome, attempt, lagSeconds }) {
      webhookDeliveries.inc({ outcome });
      if (attempt === 1) webhookLag.observe(lagSeconds);
    },
    onResponse({ route, method, status, durationSeconds }) {
      observeRequest(route, method, status, durationSeconds);
      const operation = MFA_OPERATION_OF_ROUTE[route];
      const outcome = MFA_OUTCOME_OF_STATUS[status];
      if (operation !== undefined && outcome !== undefined && method === 'POST')
        mfaAnswers.inc({ operation, outcome });
      const scim = SCIM_ROUTE.exec(route);
      if (scim !== null) {
        const scimOperation = SCIM_OPERATION_OF[`${method} ${scim[1]}${scim[2] ?? ''}`];
        if (scimOperation !== undefined)
          scimRequests.inc({ operation: scimOperation, outcome: scimOutcomeOf(status) });
      }
    },
    observe(auth) {
      source = auth;
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
