// The gateway's own metrics, fed by an afterResponse hook: one finished call updates a few counters
// and histograms. Each label tuple's series are resolved once and kept; every key is made of bounded
// label values (labels.ts), so those maps stay small. Counters and histograms are tallies (plain
// numbers, bucket counts for histograms) that prom-client's registry reads at scrape time, so a call
// does no label hashing or validation.

import type { AfterResponseHook } from '../pipeline/hooks.ts';
import type { CallRecord } from '../pipeline/record.ts';
import type { HistogramSeries, HistogramTally } from './histogram-tally.ts';
import { type Endpoint, endpointOf, errorKindLabel, modelLabel, statusClass, vendorLabel } from './labels.ts';
import type { Metrics, Tally, TallySeries } from './registry.ts';
import { forEachUpstreamFailure, overheadMs } from './upstream-share.ts';

/** 5 ms (a cached answer) to 5 min (a long reasoning stream), in seconds. */
export const CALL_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];
/** A healthy gateway adds well under a millisecond: these resolve that range and its regressions. */
export const OVERHEAD_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];

type CallLabel = 'family' | 'endpoint' | 'provider' | 'model' | 'status_class';
type EndpointLabel = 'family' | 'endpoint';

/** One (family, endpoint)'s histogram children, and its request counters by the other labels. */
interface EndpointSeries {
  duration: HistogramSeries<EndpointLabel>;
  ttfb: HistogramSeries<EndpointLabel>;
  overhead: HistogramSeries<EndpointLabel>;
  requests: Map<string, TallySeries<CallLabel>>;
}

/** Live state read at scrape time, never per call. */
export interface LiveGauges {
  inFlight(): number;
  logQueueDepth(): number;
}

export class GatewayMetrics {
  readonly #requests: Tally<CallLabel>;
  readonly #duration: HistogramTally<EndpointLabel>;
  readonly #ttfb: HistogramTally<EndpointLabel>;
  readonly #overhead: HistogramTally<EndpointLabel>;
  readonly #upstreamErrors: Tally<'provider' | 'kind'>;
  readonly #cost: TallySeries<never>;
  readonly #input: TallySeries<'direction'>;
  readonly #output: TallySeries<'direction'>;
  readonly #cacheRead: TallySeries<'direction'>;
  readonly #cacheWrite: TallySeries<'direction'>;
  readonly #cacheHits: TallySeries<'result'>;
  readonly #cacheMisses: TallySeries<'result'>;
  readonly #endpoints = new Map<Endpoint, EndpointSeries>();
  readonly #errors = new Map<string, TallySeries<'provider' | 'kind'>>();
  readonly #countFailure = (vendor: string | null, kind: string): void => this.#failure(vendor, kind);

  constructor(metrics: Metrics, live: LiveGauges) {
    this.#requests = metrics.tally({
      name: 'switchyard_requests_total',
      help: 'Proxy calls answered, by where they came in, the provider and catalog model that served them, and status class',
      labelNames: ['family', 'endpoint', 'provider', 'model', 'status_class'],
    });
    this.#duration = metrics.histogram({
      name: 'switchyard_request_duration_seconds',
      help: 'Time from a proxy call arriving to its answer complete (the last byte of a stream)',
      labelNames: ['family', 'endpoint'],
      buckets: CALL_BUCKETS,
    });
    this.#ttfb = metrics.histogram({
      name: 'switchyard_time_to_first_byte_seconds',
      help: 'Time from the serving upstream attempt starting to its response headers (the log row ttfb_ms)',
      labelNames: ['family', 'endpoint'],
      buckets: CALL_BUCKETS,
    });
    this.#overhead = metrics.histogram({
      name: 'switchyard_gateway_overhead_seconds',
      help: 'Call time minus the time its upstream attempts took (non-stream answers and calls that never streamed)',
      labelNames: ['family', 'endpoint'],
      buckets: OVERHEAD_BUCKETS,
    });
    const tokens = metrics.tally({
      name: 'switchyard_tokens_total',
      help: 'Tokens the upstreams reported, by direction',
      labelNames: ['direction'],
    });
    this.#input = tokens.series({ direction: 'input' });
    this.#output = tokens.series({ direction: 'output' });
    this.#cacheRead = tokens.series({ direction: 'cache_read' });
    this.#cacheWrite = tokens.series({ direction: 'cache_write' });
    this.#cost = metrics
      .tally({
        name: 'switchyard_cost_usd_total',
        help: 'Cost of proxy calls at catalog list prices, in US dollars (unknown models count 0)',
      })
      .series({});
    const lookups = metrics.tally({
      name: 'switchyard_cache_lookups_total',
      help: 'Chat calls that consulted the semantic cache, by result (shadow-mode would-be hits count as misses)',
      labelNames: ['result'],
    });
    this.#cacheHits = lookups.series({ result: 'hit' });
    this.#cacheMisses = lookups.series({ result: 'miss' });
    this.#upstreamErrors = metrics.tally({
      name: 'switchyard_upstream_errors_total',
      help: 'Failed upstream answers (each credential try, and streams that broke), by vendor and error kind',
      labelNames: ['provider', 'kind'],
    });
    metrics.gauge({
      name: 'switchyard_in_flight_requests',
      help: 'Proxy calls being served now',
      read: live.inFlight,
    });
    metrics.gauge({
      name: 'switchyard_log_queue_depth',
      help: 'Request log rows waiting to be written',
      read: live.logQueueDepth,
    });
  }

  /** One finished call: Map probes and additions only, no I/O. */
  record(r: CallRecord): void {
    const endpoint = endpointOf(r.requestType, r.family, r.trace);
    const series = this.#endpointSeries(endpoint);
    const provider = vendorLabel(r.vendor);
    const model = modelLabel(r.vendor, r.modelUsed, r.modelRequested);
    const status = statusClass(r.status);
    const key = `${provider}\u0000${model}\u0000${status}`;
    let requests = series.requests.get(key);
    if (requests === undefined) {
      requests = this.#requests.series({
        family: endpoint.family,
        endpoint: endpoint.endpoint,
        provider,
        model,
        status_class: status,
      });
      series.requests.set(key, requests);
    }
    requests.inc();
    series.duration.observe(r.latencyMs / 1000);
    if (r.ttfbMs !== null) series.ttfb.observe(r.ttfbMs / 1000);
    const overhead = overheadMs(r);
    if (overhead !== undefined) series.overhead.observe(overhead / 1000);
    addPositive(this.#input, r.usage.input);
    addPositive(this.#output, r.usage.output);
    addPositive(this.#cacheRead, r.usage.cacheRead);
    addPositive(this.#cacheWrite, r.usage.cacheWrite);
    addPositive(this.#cost, r.costUsd);
    const cache = r.features.cache?.cache;
    if (cache === 'hit') this.#cacheHits.inc();
    else if (cache === 'miss') this.#cacheMisses.inc();
    forEachUpstreamFailure(r, this.#countFailure);
  }

  #endpointSeries(e: Endpoint): EndpointSeries {
    let s = this.#endpoints.get(e);
    if (s === undefined) {
      const labels = { family: e.family, endpoint: e.endpoint };
      s = {
        duration: this.#duration.series(labels),
        ttfb: this.#ttfb.series(labels),
        overhead: this.#overhead.series(labels),
        requests: new Map(),
      };
      this.#endpoints.set(e, s);
    }
    return s;
  }

  #failure(vendor: string | null, kind: string): void {
    const provider = vendorLabel(vendor);
    const k = errorKindLabel(kind);
    const key = `${provider}\u0000${k}`;
    let c = this.#errors.get(key);
    if (c === undefined) {
      c = this.#upstreamErrors.series({ provider, kind: k });
      this.#errors.set(key, c);
    }
    c.inc();
  }
}

/** Counters refuse negative and non-finite amounts; a missing or zero amount adds nothing. */
function addPositive(counter: { inc(amount: number): void }, amount: number | undefined): void {
  if (amount !== undefined && amount > 0 && Number.isFinite(amount)) counter.inc(amount);
}

export function metricsHook(metrics: GatewayMetrics): AfterResponseHook {
  return (record) => metrics.record(record);
}
