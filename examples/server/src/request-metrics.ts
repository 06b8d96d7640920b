import type { Registry, RegistryContentType } from 'prom-client';

/** One label set of the request metrics: plain numbers, bucket counts not yet cumulative. */
interface Series {
  labels: { route: string; method: string; status: string };
  /** The counter's value (each metric is reset on its own, as prom-client's are). */
  requests: number;
  /** The histogram's. */
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

/** A metric's samples as the registry reads them. */
interface Snapshot {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: Sample[];
}

/** What prom-client's `Registry` reads of a metric (the shape its own metrics have). */
interface RegistryMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(this: RegistryMetric): Promise<Snapshot>;
  getForPromString(this: RegistryMetric): Promise<Snapshot>;
  reset(): void;
}

/** Options of {@link requestMetrics}. */
export interface RequestMetricsOptions {
  registry: Registry<RegistryContentType>;
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
    [...series.values()]
      .filter((s) => s.requests > 0)
      .map((s) => ({ labels: { ...s.labels }, value: s.requests }));

  const histogramSamples = (): Sample[] => {
    const samples: Sample[] = [];
    const bucket = `${histogram.name}_bucket`;
    for (const s of series.values()) {
      if (s.count === 0) continue;
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
    reset: () => void,
  ): RegistryMetric => {
    // `name` is read when scraped, as prom-client's metrics do (an OpenMetrics registry renames a counter).
    const snapshot = (self: RegistryMetric, values: Sample[]) => ({
      name: self.name,
      help: self.help,
      type,
      aggregator: 'sum',
      values,
    });
    return {
      name: definition.name,
      help: definition.help,
      type,
      aggregator: 'sum',
      // For the JSON form, labels in one object as prom-client's own metrics give them.
      async get() {
        return snapshot(
          this,
          samples().map(({ sharedLabels, ...sample }) => ({
            ...sample,
            labels: { ...sample.labels, ...sharedLabels },
          })),
        );
      },
      async getForPromString() {
        return snapshot(this, samples());
      },
      reset,
    };
  };
  registry.registerMetric(
    metric(counter, 'counter', counterSamples, () => {
      for (const s of series.values()) s.requests = 0;
    }) as never,
  );
  registry.registerMetric(
    metric(histogram, 'histogram', histogramSamples, () => {
      for (const s of series.values()) {
        s.count = 0;
        s.sum = 0;
        s.perBucket.fill(0);
      }
    }) as never,
  );

  return (route, method, status, seconds) => {
    if (!Number.isFinite(seconds)) throw new TypeError(`Value is not a valid number: ${seconds}`);
    const key = `${route}\u0000${method}\u0000${status}`;
    let s = series.get(key);
    if (s === undefined) {
      s = {
        labels: { route, method, status: String(status) },
        requests: 0,
        count: 0,
        sum: 0,
        perBucket: bounds.map(() => 0),
      };
      series.set(key, s);
    }
    s.requests += 1;
    s.count += 1;
    s.sum += seconds;
    const i = bounds.findIndex((le) => seconds <= le);
    if (i !== -1) s.perBucket[i] = (s.perBucket[i] ?? 0) + 1;
  };
}
