// What the gateway is handed when tracing starts, and what it hands the feature.
import type { PipelineFeature } from '../pipeline/hooks.ts';
import type { TraceLinks } from '../ports/trace-links.ts';

/** A caller's span, from its `traceparent`. */
export interface RemoteParent {
  /** Lowercase hex, as the header has it. */
  traceHex: string;
  spanHex: string;
  sampled: boolean;
  traceState: string | undefined;
}

/** Whether a call's trace is recorded: asked once per call, of the server span; its attempts follow it. */
export type Sampling = (parent: RemoteParent | undefined, traceIdHex: string, name: string) => boolean;

/** The tracing feature's own note on the call record (the log row's column), not a span attribute. */
export const TRACING_NOTE = 'otel';

export interface Telemetry {
  /** Registered first (app.ts), so its end-of-call work runs after every other feature's notes. */
  readonly feature: PipelineFeature;
  /** Spans for work done after its call (batches, background responses, webhook deliveries). */
  readonly links?: TraceLinks;
  /** Exports what is queued now (spans, and metrics when they are on); resolves once the collector answered (or the export failed). */
  flush(): Promise<void>;
  /** Exports what is still queued, then stops the exporter. */
  shutdown(): Promise<void>;
}

export interface TelemetryDeps {
  /** Spans that never reached the collector: the queue was full, or the export failed. */
  onDropped(count: number, reason: 'queue_full' | 'export_failed'): void;
  onError(err: unknown): void;
}
