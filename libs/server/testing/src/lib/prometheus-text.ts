/** One sample line of the Prometheus text format. */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PrometheusFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: PrometheusSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function fail(lineNumber: number, line: string, why: string): never {
  throw new Error(`Prometheus text format, line ${lineNumber}: ${why}: ${JSON.stringify(line)}`);
}

/** A value as Prometheus reads it (Go's `ParseFloat`: `NaN` and `Inf` in any case; prom-client writes `Nan`). */
function parseValue(text: string): number | undefined {
  if (/^[+]?inf(inity)?$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf(inity)?$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** The samples a family of this type may have: `name`, or its `_bucket`/`_sum`/`_count`. */
function belongs(family: PrometheusFamily, sample: string): boolean {
  if (sample === family.name) return family.type !== 'histogram';
  if (family.type === 'histogram') return [`_bucket`, `_sum`, `_count`].some((s) => sample === family.name + s);
  if (family.type === 'summary') return [`_sum`, `_count`].some((s) => sample === family.name + s);
  return false;
}

/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), as `promtool check metrics`
 * reads it: `# HELP` and `# TYPE` once per family and before its samples, metric and label names by
 * the grammar, label values with only the `\\`, `\"` and `\n` escapes, no label repeated, float values,
 * histogram buckets cumulative with `le="+Inf"` equal to `_count`. Throws on the first violation.
 */
export function parsePrometheusText(text: string): Map<string, PrometheusFamily> {
  const families = new Map<string, PrometheusFamily>();
  if (!text.endsWith('\n')) throw new Error('Prometheus text format: the exposition must end with a newline');
  let current: PrometheusFamily | undefined;
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, index) => {
    const n = index + 1;
    if (line === '') return;
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!match) return; // a plain comment
      const [, keyword, name, rest] = match;
      if (!METRIC_NAME.test(name)) fail(n, line, 'bad metric name');
      let family = families.get(name);
      if (!family) {
        family = { name, help: '', type: 'untyped', samples: [] };
        families.set(name, family);
      } else if (family.samples.length > 0) fail(n, line, `${keyword} after the samples of ${name}`);
      if (keyword === 'TYPE') {
        if (!TYPES.has(rest)) fail(n, line, 'unknown type');
        family.type = rest as PrometheusFamily['type'];
      } else {
        if (/\\[^\\n]/.test(rest)) fail(n, line, 'bad escape in HELP');
        family.help = rest;
      }
      current = family;
      return;
    }
    const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    if (!head) fail(n, line, 'bad metric name');
    const name = head[1];
    let at = name.length;
    const labels: Record<string, string> = {};
    if (line[at] === '{') {
      at += 1;
      while (line[at] !== '}') {
        const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
        if (!label || !LABEL_NAME.test(label[1])) fail(n, line, 'bad label');
        at += label[0].length;
        let value = '';
        for (;;) {
          const c = line[at];
          if (c === undefined) fail(n, line, 'unterminated label value');
          if (c === '"') break;
          if (c === '\\') {
            const next = line[at + 1];
            if (next === 'n') value += '\n';
            else if (next === '\\' || next === '"') value += next;
            else fail(n, line, 'bad escape in a label value');
            at += 2;
          } else {
            value += c;
            at += 1;
          }
        }
        at += 1;
        if (label[1] in labels) fail(n, line, `label ${label[1]} repeated`);
        labels[label[1]] = value;
        if (line[at] === ',') at += 1;
        else if (line[at] !== '}') fail(n, line, 'expected , or }');
      }
      at += 1;
    }
    const tail = line.slice(at).split(' ');
    if (tail[0] !== '' || tail.length < 2 || tail.length > 3)
      fail(n, line, 'expected one space, a value and maybe a timestamp');
    const value = parseValue(tail[1]);
    if (value === undefined) fail(n, line, 'bad value');
    if (tail[2] !== undefined && !/^-?\d+$/.test(tail[2])) fail(n, line, 'bad timestamp');
    if (!current || !belongs(current, name)) fail(n, line, 'a sample outside its family (no TYPE before it)');
    current.samples.push({ name, labels, value });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

function checkHistogram(family: PrometheusFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  const keyOf = (labels: Record<string, string>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([name]) => name !== 'le')
        .sort(),
    );
  for (const sample of family.samples) {
    const entry = series.get(keyOf(sample.labels)) ?? { buckets: [] };
    series.set(keyOf(sample.labels), entry);
    if (sample.name.endsWith('_bucket')) {
      if (sample.labels['le'] === undefined) throw new Error(`${family.name}: a bucket without le`);
      const le = parseValue(sample.labels['le']);
      if (le === undefined || Number.isNaN(le)) throw new Error(`${family.name}: a bad le`);
      entry.buckets.push([le, sample.value]);
    } else if (sample.name.endsWith('_count')) entry.count = sample.value;
  }
  for (const [key, { buckets, count }] of series) {
    for (let i = 1; i < buckets.length; i += 1)
      if (buckets[i][0] <= buckets[i - 1][0] || buckets[i][1] < buckets[i - 1][1])
        throw new Error(`${family.name}${key}: buckets not increasing and cumulative`);
    const last = buckets[buckets.length - 1];
    if (!last || last[0] !== Number.POSITIVE_INFINITY || last[1] !== count)
      throw new Error(`${family.name}${key}: the +Inf bucket must equal _count`);
  }
}

/** The sum of a family's samples named `sample` whose labels include `where`. */
export function sumOf(
  families: Map<string, PrometheusFamily>,
  family: string,
  where: Record<string, string> = {},
  sample = family,
): number {
  return (families.get(family)?.samples ?? [])
    .filter((s) => s.name === sample && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}
