/** One sample line of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its `# TYPE`, `# HELP` and samples. */
export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string | undefined;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(text: string, where: string): number {
  // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client
  // writes `Nan`).
  if (/^nan$/i.test(text)) return Number.NaN;
  if (/^\+?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value "${text}"`);
  return Number(text);
}

/** Parses `{a="x",b="y"}` from `start` (at the `{`); returns the labels and the index after the `}`. */
function parseLabels(line: string, start: number, where: string): [Record<string, string>, number] {
  const labels: Record<string, string> = {};
  let i = start + 1;
  while (line[i] !== '}') {
    const eq = line.indexOf('=', i);
    if (eq === -1) throw new Error(`${where}: label without =`);
    const name = line.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`${where}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${where}: label "${name}" twice`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: label value not quoted`);
    let value = '';
    let j = eq + 2;
    for (;;) {
      const c = line[j];
      if (c === undefined) throw new Error(`${where}: unterminated label value`);
      if (c === '"') break;
      if (c === '\\') {
        const next = line[j + 1];
        if (next === '\\' || next === '"') value += next;
        else if (next === 'n') value += '\n';
        else throw new Error(`${where}: bad escape \\${next ?? ''}`);
        j += 2;
      } else {
        value += c;
        j += 1;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i += 1;
    else if (line[i] !== '}') throw new Error(`${where}: expected , or } after a label`);
  }
  return [labels, i + 1];
}

/** The family a sample name belongs to, given the declared types. */
function familyOf(name: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const exact = families.get(name);
  if (exact) return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, -suffix.length));
    if (family?.type === 'histogram' || (family?.type === 'summary' && suffix !== '_bucket')) return family;
  }
  return undefined;
}

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests: every sample belongs to a
 * family declared by `# TYPE` before it, families are contiguous, no series appears twice, values and
 * label escapes are valid, histogram buckets are cumulative and end with `+Inf` equal to `_count`.
 * Throws naming the line otherwise.
 *
 * @example const families = parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
 */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the text does not end with a newline');
  const families = new Map<string, MetricFamily>();
  const series = new Set<string>();
  const finished = new Set<string>();
  let current: MetricFamily | undefined;
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!match) return; // A plain comment.
      const [, kind, name = '', rest = ''] = match;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name "${name}"`);
      if (finished.has(name)) throw new Error(`${where}: ${name} is not contiguous`);
      let family = families.get(name);
      if (!family) {
        family = { name, type: 'untyped', help: undefined, samples: [] };
        families.set(name, family);
      }
      if (current && current !== family) finished.add(current.name);
      current = family;
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`${where}: bad type "${rest}"`);
        if (family.samples.length > 0) throw new Error(`${where}: TYPE after samples`);
        family.type = rest as MetricFamily['type'];
      } else {
        family.help = rest;
      }
      return;
    }
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`${where}: not a sample`);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`${where}: bad metric name "${name}"`);
    let labels: Record<string, string> = {};
    let i = nameEnd;
    if (line[i] === '{') [labels, i] = parseLabels(line, i, where);
    if (line[i] !== ' ') throw new Error(`${where}: expected a space before the value`);
    const [value = '', timestamp, extra] = line.slice(i + 1).split(' ');
    if (extra !== undefined || (timestamp !== undefined && !/^-?\d+$/.test(timestamp)))
      throw new Error(`${where}: trailing text`);
    const family = familyOf(name, families);
    if (!family || family.type === 'untyped') throw new Error(`${where}: ${name} has no # TYPE before it`);
    if (family !== current) throw new Error(`${where}: ${name} is outside its family's block`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) throw new Error(`${where}: series ${key} appears twice`);
    series.add(key);
    family.samples.push({ name, labels, value: parseValue(value, where) });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

function checkHistogram(family: MetricFamily): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (s.name === `${family.name}_bucket`) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      group.buckets.push([parseValue(le, family.name), s.value]);
    } else if (s.name === `${family.name}_count`) group.count = s.value;
  }
  for (const [key, { buckets, count }] of groups) {
    const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++) {
      if ((sorted[i]?.[1] ?? 0) < (sorted[i - 1]?.[1] ?? 0))
        throw new Error(`${family.name}${key}: buckets are not cumulative`);
    }
    const last = sorted.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY || last[1] !== count)
      throw new Error(`${family.name}${key}: +Inf bucket missing or not equal to _count`);
  }
}

/**
 * The value of the one sample of `name` whose labels include `labels`; `undefined` when none does.
 * Throws when several do.
 *
 * @example sampleValue(families, 'tenant_auth_logins_total', { outcome: 'success' });
 */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const matches = [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length > 1)
    throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}

/**
 * The distinct values of `label` among the samples of `name`.
 *
 * @example labelValues(families, 'http_requests_total', 'route');
 */
export function labelValues(families: Map<string, MetricFamily>, name: string, label: string): Set<string> {
  const values = new Set<string>();
  for (const family of families.values())
    for (const s of family.samples)
      if (s.name === name && s.labels[label] !== undefined) values.add(s.labels[label]);
  return values;
}
