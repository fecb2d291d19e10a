// A histogram for per-call paths. prom-client's `observe()` builds a label object, validates it and
// hashes it into a string key on every call; a tally's series are resolved once and an observation
// is a bucket search and three additions on plain numbers. The scrape reads them in the shape
// prom-client's own histogram hands its registry, so the exposition text is the same, line for line.

/** One exported sample, as prom-client's registry formats it. */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/** A metric's export: what the registry formats. */
interface Exported<V> {
  name: string;
  help: string;
  type: string;
  values: V[];
  aggregator: string;
}

/** One label set of a histogram: per-bucket counts (not cumulative), their sum and count. */
export class HistogramSeries<L extends string = string> {
  /** One slot per bound, plus one for values above the last (only in `count`, as `+Inf`). */
  readonly #buckets: Float64Array;
  readonly #bounds: readonly number[];
  #sum = 0;
  #count = 0;

  constructor(
    readonly labels: Readonly<Record<L, string>>,
    bounds: readonly number[],
    private readonly firstSeen: (s: HistogramSeries<L>) => void,
  ) {
    this.#bounds = bounds;
    this.#buckets = new Float64Array(bounds.length + 1);
  }

  /** A non-finite value is dropped (prom-client would throw it at the caller). */
  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.#buckets[i]++;
    this.#sum += value;
    if (this.#count++ === 0) this.firstSeen(this);
  }

  clear(): void {
    this.#buckets.fill(0);
    this.#sum = 0;
    this.#count = 0;
  }

  /** Cumulative buckets, `+Inf`, sum and count: the order prom-client exports them in. */
  samples(name: string, out: Sample[]): void {
    const bucket = `${name}_bucket`;
    const shared = this.labels;
    let acc = 0;
    for (let i = 0; i < this.#bounds.length; i++) {
      acc += this.#buckets[i];
      out.push({
        labels: { le: this.#bounds[i] },
        sharedLabels: shared,
        value: acc,
        metricName: bucket,
        exemplar: null,
      });
    }
    out.push({ labels: { le: '+Inf' }, sharedLabels: shared, value: this.#count, metricName: bucket, exemplar: null });
    out.push({ labels: {}, sharedLabels: shared, value: this.#sum, metricName: `${name}_sum`, exemplar: undefined });
    out.push({
      labels: {},
      sharedLabels: shared,
      value: this.#count,
      metricName: `${name}_count`,
      exemplar: undefined,
    });
  }
}

/**
 * Registered in a prom-client registry in place of a `Histogram`: the registry only asks a metric
 * for its name, type and `get()` / `getForPromString()` (and `reset()`).
 */
export class HistogramTally<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: readonly number[];
  /** Series in the order of their first observation, which is prom-client's export order. */
  #observed: HistogramSeries<L>[] = [];
  readonly #all: HistogramSeries<L>[] = [];
  readonly #firstSeen = (s: HistogramSeries<L>): void => {
    this.#observed.push(s);
  };

  constructor(
    readonly name: string,
    readonly help: string,
    bounds: readonly number[],
  ) {
    this.#bounds = [...bounds];
  }

  /** Resolve each label set once and keep its series: every call adds one. */
  series(labels: Readonly<Record<L, string>>): HistogramSeries<L> {
    const s = new HistogramSeries<L>(Object.freeze({ ...labels }), this.#bounds, this.#firstSeen);
    this.#all.push(s);
    return s;
  }

  async getForPromString(): Promise<Exported<Sample>> {
    const values: Sample[] = [];
    for (const s of this.#observed) s.samples(this.name, values);
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form (`getMetricsAsJSON`): each sample's series labels merged into its own. */
  async get(): Promise<Exported<Omit<Sample, 'sharedLabels'>>> {
    const data = await this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return { ...data, values };
  }

  /** Forgets every observation (`Registry.resetMetrics()`); the series handed out stay usable. */
  reset(): void {
    for (const s of this.#all) s.clear();
    this.#observed = [];
  }
}
