// What a finished call's record says about its upstreams: how long the call waited on them (so the
// rest is the gateway's own time) and which of their answers were failures. Read from what the
// pipeline already records (the decision trace, the health samples, the error), so measuring costs
// the hot path nothing.
import type { CallRecord, HealthSample } from '../pipeline/record.ts';
import { isRecord } from '../util/json.ts';

/** A streamed answer's record: the call ended at its last chunk, long after its attempt was timed. */
export function startedStream(r: CallRecord): boolean {
  return isRecord(r.responseBody) && r.responseBody.streamed === true;
}

/** The decision trace's attempt times; undefined when the record has no trace. */
function traceAttemptsMs(trace: unknown): number | undefined {
  if (!isRecord(trace) || !Array.isArray(trace.attempts)) return undefined;
  // An ensemble's attempts run at once: the call waited for the longest, not their sum.
  const parallel = trace.policy === 'ensemble';
  let ms = 0;
  for (const a of trace.attempts as unknown[]) {
    const t = isRecord(a) ? a.latency_ms : undefined;
    if (typeof t !== 'number') continue;
    ms = parallel ? Math.max(ms, t) : ms + t;
  }
  return ms;
}

/** Direct calls without a trace (embeddings) time each credential try in a sample. */
function sampledMs(samples: readonly HealthSample[]): number | undefined {
  let ms: number | undefined;
  for (const s of samples) if (s.credentialId !== undefined) ms = (ms ?? 0) + s.latencyMs;
  return ms;
}

/**
 * Milliseconds the call spent waiting on upstreams, or undefined when the record cannot tell:
 * a stream that started (the relay's time, mostly the upstream's, is not in the record), or an
 * upstream call timed nowhere (a direct embeddings call on the caller's own key). A call that
 * reached no upstream (refused, answered from cache) waited 0. Judge calls of a cascade are not
 * attempts, so their time counts as the gateway's.
 */
export function upstreamMs(r: CallRecord): number | undefined {
  if (startedStream(r)) return undefined;
  const traced = traceAttemptsMs(r.trace);
  if (traced !== undefined) return traced;
  const sampled = sampledMs(r.healthSamples);
  if (sampled !== undefined) return sampled;
  return r.vendor === null ? 0 : undefined;
}

/** The gateway's own share of the call, in milliseconds; undefined when the record cannot tell. */
export function overheadMs(r: CallRecord): number | undefined {
  const upstream = upstreamMs(r);
  // Attempt times are rounded to 0.01 ms each: never report a negative share.
  return upstream === undefined ? undefined : Math.max(0, r.latencyMs - upstream);
}

/** The kind of an upstream's failure as the pipeline records it (UpstreamErrorInfo), else undefined. */
function upstreamErrorKind(error: unknown): string | undefined {
  return isRecord(error) && typeof error.status === 'number' && typeof error.kind === 'string' ? error.kind : undefined;
}

/**
 * Calls `each(vendor, kind)` once per failed upstream answer: each failed credential try (a bad
 * key that the next credential covered for counts too), and an error the tries do not show (a
 * stream that broke after its headers, a call on the caller's own key, which is never sampled).
 */
export function forEachUpstreamFailure(r: CallRecord, each: (vendor: string | null, kind: string) => void): void {
  let counted = false;
  for (const s of r.healthSamples) {
    // Samples with only a `ref` repeat a routed attempt's credential tries as one.
    if (s.ok || s.credentialId === undefined) continue;
    each(s.ref?.vendor ?? s.vendor ?? null, s.kind);
    counted = true;
  }
  // Without a provider no upstream answered: the error is the gateway's (no credential, refused).
  const kind = r.vendor !== null ? upstreamErrorKind(r.error) : undefined;
  if (kind !== undefined && (!counted || startedStream(r))) each(r.vendor, kind);
}
