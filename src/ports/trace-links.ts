// Work the gateway does after the call that asked for it (a batch's items, a background response's
// completion, a webhook delivery) is traced in a trace of its own with a span link to that call, not
// as its child: it may run hours later, on another instance. The call's context travels as its W3C
// `traceparent`, stored with what it created; with tracing off it is null and nothing else is done.
// The telemetry feature implements the port; the features that defer work reach it through the
// pipeline's hooks or their wiring, never by importing telemetry.

/** A call's W3C `traceparent`, stored with the work it created; null when tracing is off. */
export type TraceLink = string | null;

export type SpanAttr = string | number | boolean;

export interface LinkedSpan {
  /** The span's own context: for the answer (`traceparent`) or a request it makes. */
  readonly traceparent: string;
  /** Ends the span; `errorType` (the conventions' `error.type`) marks it failed. */
  end(attributes: Readonly<Record<string, SpanAttr | null | undefined>>, errorType?: string): void;
}

export type LinkedKind = 'client' | 'consumer' | 'internal';

export interface TraceLinks {
  /**
   * The server span of a call the pipeline's hooks do not see (a batch endpoint), continuing the
   * caller's `traceparent` when it sent one.
   */
  openCall(name: string, traceparent: string | undefined, tracestate: string | undefined): LinkedSpan;
  /** The root span of a new trace, linked to `link` when there is one; `startedAt` in Unix ms (now by default). */
  startLinked(name: string, kind: LinkedKind, link: TraceLink, startedAt?: number): LinkedSpan;
}
