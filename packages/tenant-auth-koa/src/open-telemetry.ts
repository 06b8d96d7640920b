import { SpanStatusCode, type TracerProvider, trace } from '@opentelemetry/api';
import type { Instrumentation, SpanName } from 'tenant-auth-core';

/**
 * Options of {@link openTelemetrySpan}.
 *
 * @example
 * const options: OpenTelemetrySpanOptions = { tracerProvider: provider };
 */
export interface OpenTelemetrySpanOptions {
  /**
   * Where the tracer comes from. Default: the global provider that the application's OpenTelemetry SDK
   * registers (and a no-op until it does). Pass the provider itself when the application's SDK uses
   * an `@opentelemetry/api` older than this package's (1.9): the global is then invisible from here.
   */
  tracerProvider?: TracerProvider;
}

/**
 * A `span` hook for core's `instrumentation` option, on the OpenTelemetry API: each unit of work
 * tenant-auth reports (`tenant-auth.login`, `tenant-auth.refresh`, `tenant-auth.register`,
 * `tenant-auth.password.hash`, `tenant-auth.password.verify`) runs in an active span of its name, so
 * database spans below it nest under it. A throw records the exception on the span (with the
 * `tenant_auth.error_code` attribute for a `TenantAuthError`, `invalid_credentials` included) and sets
 * its status to error; the span ends either way. Nothing is exported unless the application registers
 * a tracer provider (the API alone is a no-op).
 *
 * @example
 * const auth = createTenantAuth({
 *   stores,
 *   accessToken: { secret },
 *   refreshSecret,
 *   instrumentation: { span: openTelemetrySpan() },
 * });
 */
export function openTelemetrySpan(
  tracerName = 'tenant-auth',
  options: OpenTelemetrySpanOptions = {},
): NonNullable<Instrumentation['span']> {
  // The global provider is a proxy: a provider the application registers later is still used.
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(tracerName);
  return <T>(name: SpanName, fn: () => Promise<T>): Promise<T> =>
    tracer.startActiveSpan(name, async (span) => {
      try {
        return await fn();
      } catch (err) {
        const code = (err as { code?: unknown } | null)?.code;
        if (typeof code === 'string') span.setAttribute('tenant_auth.error_code', code);
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({
          code: SpanStatusCode.ERROR,
          ...(err instanceof Error ? { message: err.message } : {}),
        });
        throw err;
      } finally {
        span.end();
      }
    });
}
