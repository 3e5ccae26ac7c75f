/** A sample as prom-client's `Registry` writes it (`metricName` defaults to the family's name). */
export interface Sample {
  metricName?: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}

/** What prom-client's `Registry` asks of a metric: `get()` gives the samples to write. */
export interface Collected {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

type Labels<L extends string> = Readonly<Record<L, string>>;

/** One labelled counter: the proxy route adds to `value` directly. */
export class CounterChild {
  value = 0;
  constructor(readonly labels: Readonly<Record<string, string>>) {}
}

/** One labelled histogram: observing is a bucket search over at most 13 bounds and three additions. */
export class HistogramChild {
  /** Per bucket (not cumulative); the last one is `+Inf`. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i += 1;
    this.counts[i] += 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * The parts of prom-client's `Metric` its `Registry` uses: a name, and `get()` giving the values to
 * write. prom-client formats and escapes them (the text format) when `/metrics` is scraped.
 */
abstract class Family<L extends string, C extends { labels: Readonly<Record<string, string>> }> {
  readonly aggregator = 'sum' as const;
  private readonly children = new Map<string, C>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
  ) {}

  /** The child of these label values, created on first use; keep it rather than asking again. */
  child(labels: Labels<L>): C {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let child = this.children.get(key);
    if (!child) {
      const own: Record<string, string> = {};
      for (const name of this.labelNames) own[name] = labels[name];
      child = this.create(own);
      this.children.set(key, child);
    }
    return child;
  }

  protected get all(): IterableIterator<C> {
    return this.children.values();
  }

  protected abstract create(labels: Record<string, string>): C;
}

export class CounterFamily<L extends string> extends Family<L, CounterChild> {
  readonly type = 'counter' as const;

  protected create(labels: Record<string, string>): CounterChild {
    return new CounterChild(labels);
  }

  get(): Collected {
    const values = [...this.all].map((child) => ({ labels: child.labels, value: child.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

export class HistogramFamily<L extends string> extends Family<L, HistogramChild> {
  readonly type = 'histogram' as const;

  constructor(
    name: string,
    help: string,
    labelNames: readonly L[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  protected create(labels: Record<string, string>): HistogramChild {
    return new HistogramChild(labels, this.buckets);
  }

  get(): Collected {
    const values: Sample[] = [];
    for (const child of this.all) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += child.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...child.labels, le: bound }, value: cumulative });
      });
      cumulative += child.counts[this.buckets.length];
      values.push({ metricName: `${this.name}_bucket`, labels: { ...child.labels, le: '+Inf' }, value: cumulative });
      values.push({ metricName: `${this.name}_sum`, labels: child.labels, value: child.sum });
      values.push({ metricName: `${this.name}_count`, labels: child.labels, value: child.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
