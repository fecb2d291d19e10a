// One Prometheus registry per gateway instance, and the only way features add metrics to it. Not
// prom-client's global registry: tests run several gateways in one process, and each must count
// only its own calls.
import { Counter, collectDefaultMetrics, Gauge, type Histogram, Registry } from 'prom-client';
import { HistogramTally } from './histogram-tally.ts';

/** Every metric the gateway exposes shares one prefix, so one scrape config selects them all. */
const NAME = /^switchyard_[a-z][a-z0-9_]*$/;

export interface MetricSpec<L extends string> {
  /** `switchyard_<what>[_<unit>][_total]`, Prometheus naming. */
  name: string;
  help: string;
  /** Every value a label takes must come from a small fixed set (labels.ts bounds the usual ones). */
  labelNames?: readonly L[];
}

export interface GaugeSpec<L extends string> extends MetricSpec<L> {
  /** Read at scrape time, so that a gauge of live state costs nothing between scrapes. */
  read?: () => number;
  /** Every label set's value, read at scrape time (label sets not returned are dropped). */
  readEach?: () => Promise<Array<{ labels: Record<L, string>; value: number }>>;
}

export interface HistogramSpec<L extends string> extends MetricSpec<L> {
  /** Upper bounds in the metric's unit, ascending. */
  buckets: readonly number[];
}

/** One label set of a tally: a plain number between scrapes. */
export class TallySeries<L extends string = string> {
  pending = 0;
  constructor(readonly labels: Readonly<Record<L, string>>) {}

  /** `amount` must be finite and not negative, as for a counter. */
  inc(amount = 1): void {
    this.pending += amount;
  }
}

/**
 * A counter for per-call paths. prom-client hashes the label set on every `inc()`; a tally's series
 * add to plain numbers and hand their sums to the counter when it is scraped. Resolve each series
 * once and keep it: every `series()` call adds one to the list that each scrape walks.
 */
export class Tally<L extends string> {
  readonly #series: TallySeries<L>[] = [];

  series(labels: Readonly<Record<L, string>>): TallySeries<L> {
    const s = new TallySeries(labels);
    this.#series.push(s);
    return s;
  }

  flushInto(counter: Counter<L>): void {
    for (const s of this.#series) {
      if (!(s.pending > 0 && Number.isFinite(s.pending))) continue;
      counter.inc(s.labels, s.pending);
      s.pending = 0;
    }
  }
}

function checkName(name: string): string {
  if (!NAME.test(name)) throw new Error(`metric name "${name}" must match ${NAME}`);
  return name;
}

export class Metrics {
  readonly registry = new Registry();
  #processMetrics = false;

  counter<L extends string = never>(spec: MetricSpec<L>): Counter<L> {
    return new Counter<L>({
      name: checkName(spec.name),
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [this.registry],
    });
  }

  /** A counter fed through plain-number series (see Tally), for paths that run on every call. */
  tally<L extends string = never>(spec: MetricSpec<L>): Tally<L> {
    const tally = new Tally<L>();
    const counter: Counter<L> = new Counter<L>({
      name: checkName(spec.name),
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [this.registry],
      collect: () => tally.flushInto(counter),
    });
    return tally;
  }

  gauge<L extends string = never>(spec: GaugeSpec<L>): Gauge<L> {
    const { read, readEach } = spec;
    const gauge: Gauge<L> = new Gauge<L>({
      name: checkName(spec.name),
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [this.registry],
      ...(read ? { collect: () => gauge.set(read()) } : {}),
      ...(readEach
        ? {
            collect: async () => {
              const values = await readEach();
              gauge.reset();
              for (const v of values) gauge.set(v.labels as Partial<Record<L, string | number>>, v.value);
            },
          }
        : {}),
    });
    return gauge;
  }

  /** A histogram fed through plain-number series (see HistogramTally), for paths that run on every call. */
  histogram<L extends string = never>(spec: HistogramSpec<L>): HistogramTally<L> {
    const histogram = new HistogramTally<L>(checkName(spec.name), spec.help, spec.buckets);
    // The registry's type names prom-client's classes, but it only calls what HistogramTally has.
    this.registry.registerMetric(histogram as unknown as Histogram<L>);
    return histogram;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text for `GET /metrics`. */
  scrape(): Promise<string> {
    // Process metrics start with the first scrape: their event-loop and GC samplers run for the life
    // of the process, and a gateway nobody scrapes (tests, embedded use) should not pile them up.
    if (!this.#processMetrics) {
      collectDefaultMetrics({ register: this.registry });
      this.#processMetrics = true;
    }
    return this.registry.metrics();
  }
}
