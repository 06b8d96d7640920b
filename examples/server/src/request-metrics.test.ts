import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { requestMetrics } from './request-metrics.js';

const COUNTER = { name: 'http_requests_total', help: 'HTTP requests answered.' };
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HISTOGRAM = { name: 'http_request_duration_seconds', help: 'Time to answer.', buckets: BUCKETS };

/** The same metrics on prom-client's own Counter and Histogram. */
function reference(contentType: RegistryContentType = Registry.PROMETHEUS_CONTENT_TYPE) {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(contentType);
  const labelNames = ['route', 'method', 'status'] as const;
  const counter = new Counter({ ...COUNTER, labelNames, registers: [registry] });
  const histogram = new Histogram({ ...HISTOGRAM, labelNames, registers: [registry] });
  return {
    registry,
    observe(route: string, method: string, status: number, seconds: number) {
      const labels = { route, method, status: String(status) };
      counter.inc(labels);
      histogram.observe(labels, seconds);
    },
  };
}

const observations: [string, string, number, number][] = [
  ['/api/v1/health', 'GET', 200, 0.0004],
  ['/api/v1/health', 'GET', 200, 0.005],
  ['/api/v1/health', 'GET', 503, 2.2],
  ['/api/v1/sessions/:id', 'DELETE', 404, 0.07],
  ['/api/v1/auth/login', 'POST', 200, 0.25],
  ['/api/v1/auth/login', 'POST', 401, 11],
  ['unmatched', 'PROPFIND', 404, 0.001],
  ['/api/v1/projects/"quoted"\\path', 'GET', 200, 0.0099],
  ['/api/v1/health', 'GET', 200, 1e-9],
];

describe('requestMetrics', () => {
  it('scrapes as prom-client Counter and Histogram fed the same requests do, as text and as JSON', async () => {
    for (const contentType of [Registry.PROMETHEUS_CONTENT_TYPE, Registry.OPENMETRICS_CONTENT_TYPE]) {
      const registry = new Registry<RegistryContentType>();
      registry.setContentType(contentType);
      const observe = requestMetrics({ registry, counter: COUNTER, histogram: HISTOGRAM });
      const expected = reference(contentType);
      expect(await registry.metrics()).toBe(await expected.registry.metrics());
      for (const [route, method, status, seconds] of observations) {
        observe(route, method, status, seconds);
        expected.observe(route, method, status, seconds);
      }
      expect(await registry.metrics(), contentType).toBe(await expected.registry.metrics());
      expect(await registry.getMetricsAsJSON()).toEqual(await expected.registry.getMetricsAsJSON());
    }
  });

  it('resets each metric on its own, as prom-client does, and refuses a duration that is not a number', async () => {
    const registry = new Registry();
    const observe = requestMetrics({ registry, counter: COUNTER, histogram: HISTOGRAM });
    const expected = reference();
    for (const [route, method, status, seconds] of observations) {
      observe(route, method, status, seconds);
      expected.observe(route, method, status, seconds);
    }
    registry.getSingleMetric(COUNTER.name)?.reset();
    expected.registry.getSingleMetric(COUNTER.name)?.reset();
    observe('/api/v1/health', 'GET', 200, 0.003);
    expected.observe('/api/v1/health', 'GET', 200, 0.003);
    expect(await registry.metrics()).toBe(await expected.registry.metrics());
    registry.getSingleMetric(HISTOGRAM.name)?.reset();
    expected.registry.getSingleMetric(HISTOGRAM.name)?.reset();
    expect(await registry.metrics()).toBe(await expected.registry.metrics());
    expect(() => observe('/api/v1/health', 'GET', 200, Number.NaN)).toThrow(TypeError);
  });

  it('starts over when the registry resets its metrics', async () => {
    const registry = new Registry();
    const observe = requestMetrics({ registry, counter: COUNTER, histogram: HISTOGRAM });
    observe('/api/v1/health', 'GET', 200, 0.001);
    registry.resetMetrics();
    observe('/api/v1/health', 'GET', 200, 0.02);
    const expected = reference();
    expected.observe('/api/v1/health', 'GET', 200, 0.02);
    expect(await registry.metrics()).toBe(await expected.registry.metrics());
  });
});
