import type { Registry } from 'prom-client';

/** One label set of the request metrics: plain numbers, bucket counts not yet cumulative. */
interface Series {
  labels: { route: string; method: string; status: string };
  count: number;
  sum: number;
  perBucket: number[];
}

/** A sample as prom-client's registry formats it. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
  exemplar?: null;
  sharedLabels?: Record<string, string>;
}

/** What prom-client's `Registry` reads of a metric (the shape its own metrics have). */
interface RegistryMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }>;
  getForPromString?(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: Sample[];
  }>;
  reset(): void;
}

/** Options of {@link requestMetrics}. */
export interface RequestMetricsOptions {
  registry: Registry;
  counter: { name: string; help: string };
  histogram: { name: string; help: string; buckets: readonly number[] };
}

/**
 * A counter of HTTP requests and a histogram of their durations, by route, method and status, that cost
 * a request one `Map` lookup and three additions: each label set's numbers are kept here and handed to
 * prom-client's registry as samples when it is scraped, exactly as prom-client's own `Counter` and
 * `Histogram` would give them (the text of a scrape is the same). Through prom-client's metrics, a
 * request cost two label validations and two label hashes, about 2 % of an authenticated read.
 *
 * @example
 * const observe = requestMetrics({ registry, counter: { name: 'http_requests_total', help }, histogram: { name: 'http_request_duration_seconds', help, buckets } });
 * observe('/api/v1/health', 'GET', 200, 0.0004);
 */
export function requestMetrics(
  options: RequestMetricsOptions,
): (route: string, method: string, status: number, seconds: number) => void {
  const { registry, counter, histogram } = options;
  const bounds = [...histogram.buckets];
  const series = new Map<string, Series>();

  const counterSamples = (): Sample[] =>
    [...series.values()].map((s) => ({ labels: { ...s.labels }, value: s.count }));

  const histogramSamples = (): Sample[] => {
    const samples: Sample[] = [];
    const bucket = `${histogram.name}_bucket`;
    for (const s of series.values()) {
      let cumulative = 0;
      bounds.forEach((le, i) => {
        cumulative += s.perBucket[i] ?? 0;
        samples.push({
          labels: { le },
          value: cumulative,
          metricName: bucket,
          exemplar: null,
          sharedLabels: s.labels,
        });
      });
      samples.push(
        {
          labels: { le: '+Inf' },
          value: s.count,
          metricName: bucket,
          exemplar: null,
          sharedLabels: s.labels,
        },
        { labels: {}, value: s.sum, metricName: `${histogram.name}_sum`, sharedLabels: s.labels },
        { labels: {}, value: s.count, metricName: `${histogram.name}_count`, sharedLabels: s.labels },
      );
    }
    return samples;
  };

  const metric = (
    definition: { name: string; help: string },
    type: RegistryMetric['type'],
    samples: () => Sample[],
  ): RegistryMetric => {
    const { name, help } = definition;
    const snapshot = (values: Sample[]) => ({ name, help, type, aggregator: 'sum', values });
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      // For the JSON form, labels in one object as prom-client's own metrics give them.
      get: async () =>
        snapshot(
          samples().map(({ sharedLabels, ...sample }) => ({
            ...sample,
            labels: { ...sample.labels, ...sharedLabels },
          })),
        ),
      getForPromString: async () => snapshot(samples()),
      reset: () => series.clear(),
    };
  };
  registry.registerMetric(metric(counter, 'counter', counterSamples) as never);
  registry.registerMetric(metric(histogram, 'histogram', histogramSamples) as never);

  return (route, method, status, seconds) => {
    const key = `${route}\u0000${method}\u0000${status}`;
    let s = series.get(key);
    if (s === undefined) {
      s = {
        labels: { route, method, status: String(status) },
        count: 0,
        sum: 0,
        perBucket: bounds.map(() => 0),
      };
      series.set(key, s);
    }
    s.count += 1;
    s.sum += seconds;
    const i = bounds.findIndex((le) => seconds <= le);
    if (i !== -1) s.perBucket[i] = (s.perBucket[i] ?? 0) + 1;
  };
}
