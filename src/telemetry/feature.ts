// The tracing feature: a server span per proxy call, continued from the caller's `traceparent`, and
// a client span per upstream attempt whose `traceparent` goes upstream with it. While the call runs
// the feature only draws span ids and notes when each attempt was sent; everything a span says is
// read from the call record at the end (attributes.ts) and written straight into OTLP (spans.ts).
// The end is the call's end, or the moment its answer goes out for a call held past it.
import type { TelemetryConfig } from '../config.ts';
import type { PipelineFeature } from '../pipeline/hooks.ts';
import { addReplyHeader, atCallEnd, atHold } from '../pipeline/lifecycle.ts';
import { noteFeature } from '../pipeline/record.ts';
import type { CallRecord, ProxyCall } from '../pipeline/types.ts';
import type { AttemptRecord } from '../routing/execute-types.ts';
import {
  attemptAttributes,
  attemptOutcomeAttributes,
  decisionOf,
  errorType,
  operationName,
  serverAttributes,
} from './attributes.ts';
import { contentAttributes } from './content.ts';
import type { SpanQueue } from './queue.ts';
import { ERROR_TYPE } from './semconv.ts';
import {
  injectContext,
  KIND_CLIENT,
  KIND_CONSUMER,
  KIND_SERVER,
  type OpenSpan,
  openChild,
  openRoot,
  parseTraceparent,
  SpanWriter,
  STATUS_ERROR,
  traceparentOf,
} from './spans.ts';
import { type RemoteParent, type Sampling, type TelemetryDeps, TRACING_NOTE } from './types.ts';

/** One upstream request as it left: its span, and what to find its trace record by. */
interface Sent {
  span: OpenSpan;
  vendor: string;
  vendorAsSent: string;
  model: string;
  url: string;
}

export function tracingFeature(
  sampling: Sampling,
  queue: SpanQueue,
  noPropagation: ReadonlySet<string>,
  config: Pick<TelemetryConfig, 'captureContent'>,
  deps: TelemetryDeps,
): PipelineFeature {
  const propagateAll = !noPropagation.has('*');
  const writer = new SpanWriter(queue);
  function propagates(vendor: string): boolean {
    return propagateAll && !noPropagation.has(vendor);
  }
  function end(t: TracedCall, record: CallRecord | undefined): void {
    try {
      endSpans(writer, t, record, config.captureContent);
    } catch (err) {
      deps.onError(err);
    }
  }
  return {
    beforeRoute(call) {
      const parent = parseTraceparent(call.headers.traceparent, call.headers.tracestate);
      const server = openRoot(parent, false, call.started);
      // Named once the record is known; the sampler sees the name the request asks for.
      server.sampled = sampling(parent, server.traceHex, call.modelRequested);
      addReplyHeader(call, 'traceparent', traceparentOf(server));
      const chat = call.chat;
      if (!server.sampled) {
        // Not sampled: the attempts still carry the call's context, so the vendor's side joins the trace.
        if (chat !== undefined)
          chat.onSend = (target, spec) => {
            if (propagates(target.vendor)) injectContext(server, spec.headers);
          };
        return;
      }
      // A batch item is a trace of its own, linked to the call that created its batch.
      const link = call.batchItem?.traceLink;
      const t: TracedCall = {
        call,
        server,
        sent: [],
        link: link == null ? undefined : parseTraceparent(link, undefined),
        held: false,
      };
      if (chat !== undefined) {
        // The answer in IR form carries the response id and finish reason for the span.
        chat.collectAnswer = true;
        chat.onSend = (target, spec) => {
          const span = openChild(server, performance.now());
          t.sent.push({
            span,
            vendor: target.vendor,
            vendorAsSent: target.vendorAsSent,
            model: target.model,
            url: spec.url,
          });
          if (propagates(target.vendor)) injectContext(span, spec.headers);
        };
      }
      // A call held past its answer (a background response's create call) ends its spans as the
      // answer goes out: its end may come much later, or on another instance, or never here.
      atHold(call, (record) => {
        t.held = true;
        end(t, record);
      });
      atCallEnd(call, (record) => {
        // The log row's link to this trace (SWITCHYARD_TRACE_URL_TEMPLATE on the dashboard's log page).
        if (record !== undefined) noteFeature(record, TRACING_NOTE, { otelTraceId: server.traceHex });
        if (!t.held) end(t, record);
      });
    },
  };
}

/** A sampled call's spans while it runs. */
interface TracedCall {
  readonly call: ProxyCall;
  readonly server: OpenSpan;
  readonly sent: Sent[];
  /** The call that created this one's work, when it runs in a trace of its own. */
  readonly link: RemoteParent | undefined;
  /** Its spans ended as its answer went out (see atHold). */
  held: boolean;
}

function endSpans(writer: SpanWriter, t: TracedCall, record: CallRecord | undefined, captureContent: boolean): void {
  const call = t.call;
  const op = operationName(call, record?.requestType ?? call.codec.requestType);
  const now = performance.now();
  const attempts = decisionOf(record)?.attempts ?? [];
  if (t.sent.length > 0) endSent(writer, op, t.sent, attempts, now);
  else traceOnlyAttempts(writer, call, t.server, op, attempts);
  const kind = call.batchItem === undefined ? KIND_SERVER : KIND_CONSUMER;
  if (!writer.open(t.server, op, call.modelRequested, kind, now)) return;
  serverAttributes(call, op, record, t.held, writer);
  if (captureContent) contentAttributes(call, record, writer);
  const failed = record === undefined || record.status >= 500;
  const message = failed ? (record ? errorType(record.status, record.error) : 'no answer') : undefined;
  writer.close(t.server, failed ? STATUS_ERROR : undefined, message, t.link);
}

/**
 * Pairs each request sent with its record in the decision trace, in order, by model and provider (a
 * credential tried and failed over inside one step has no record of its own: it ends where the next
 * request began). The served attempt lasts to the end of the call, its stream included.
 */
function endSent(
  writer: SpanWriter,
  op: string,
  sent: readonly Sent[],
  attempts: readonly AttemptRecord[],
  now: number,
): void {
  const used: number[] = [];
  for (let i = 0; i < sent.length; i++) {
    const s = sent[i];
    let j = 0;
    while (
      j < attempts.length &&
      (used.includes(j) || attempts[j].model !== s.model || attempts[j].provider !== s.vendorAsSent)
    )
      j++;
    const a = j < attempts.length ? attempts[j] : undefined;
    if (a !== undefined) used.push(j);
    const end =
      a === undefined
        ? (sent[i + 1]?.span.start ?? now)
        : a.served === true
          ? now
          : Math.min(now, s.span.start + a.latency_ms);
    if (!writer.open(s.span, op, s.model, KIND_CLIENT, end)) continue;
    attemptAttributes(op, s.vendor, s.model, s.url, writer);
    if (a === undefined) writer.set(ERROR_TYPE, 'retried');
    else attemptOutcomeAttributes(a, writer);
    writer.close(s.span, a === undefined || a.outcome === 'error' ? STATUS_ERROR : undefined, undefined, undefined);
  }
}

/**
 * Calls whose attempts were not seen as they left (embeddings, pass-through) still show one client
 * span per attempt, placed one after another from the start of the call by their recorded latency.
 */
function traceOnlyAttempts(
  writer: SpanWriter,
  call: ProxyCall,
  server: OpenSpan,
  op: string,
  attempts: readonly AttemptRecord[],
): void {
  let at = call.started;
  for (const a of attempts) {
    const span = openChild(server, at);
    at += a.latency_ms;
    if (!writer.open(span, op, a.model, KIND_CLIENT, at)) continue;
    attemptAttributes(op, a.provider, a.model, undefined, writer);
    attemptOutcomeAttributes(a, writer);
    writer.close(span, a.outcome === 'error' ? STATUS_ERROR : undefined, undefined, undefined);
  }
}
