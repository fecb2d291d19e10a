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
  type SpanQueue,
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
  const writer = new SpanWriter();
  const propagates = (vendor: string) => propagateAll && !noPropagation.has(vendor);
  return {
    beforeRoute(call) {
      const parent = parseTraceparent(call.headers.traceparent, call.headers.tracestate);
      const server = openRoot(parent, false, call.started);
      // A batch item is a trace of its own, linked to the call that created its batch.
      const link = call.batchItem?.traceLink;
      const linked = link == null ? undefined : parseTraceparent(link, undefined);
      // Named once the record is known; the sampler sees the name the request asks for.
      server.sampled = sampling(parent, server.traceHex, call.modelRequested);
      addReplyHeader(call, 'traceparent', traceparentOf(server));
      const sent: Sent[] = [];
      const chat = call.chat;
      if (chat !== undefined && server.sampled) {
        // The answer in IR form carries the response id and finish reason for the span.
        chat.collectAnswer = true;
        chat.onSend = (target, spec) => {
          const span = openChild(server, performance.now());
          sent.push({
            span,
            vendor: target.vendor,
            vendorAsSent: target.vendorAsSent,
            model: target.model,
            url: spec.url,
          });
          if (propagates(target.vendor)) injectContext(span, spec.headers);
        };
      } else if (chat !== undefined) {
        // Not sampled: the attempts still carry the call's context, so the vendor's side joins the trace.
        chat.onSend = (target, spec) => {
          if (propagates(target.vendor)) injectContext(server, spec.headers);
        };
      }
      if (!server.sampled) return;
      // A call held past its answer (a background response's create call) ends its spans as the
      // answer goes out: its end may come much later, or on another instance, or never here.
      let held = false;
      const end = (record: CallRecord | undefined) => {
        try {
          endSpans(writer, queue, call, server, sent, record, held, config.captureContent, linked);
        } catch (err) {
          deps.onError(err);
        }
      };
      atHold(call, (record) => {
        held = true;
        end(record);
      });
      atCallEnd(call, (record) => {
        // The log row's link to this trace (SWITCHYARD_TRACE_URL_TEMPLATE on the dashboard's log page).
        if (record !== undefined) noteFeature(record, TRACING_NOTE, { otelTraceId: server.traceHex });
        if (!held) end(record);
      });
    },
  };
}

function endSpans(
  writer: SpanWriter,
  queue: SpanQueue,
  call: ProxyCall,
  server: OpenSpan,
  sent: readonly Sent[],
  record: CallRecord | undefined,
  held: boolean,
  captureContent: boolean,
  link: RemoteParent | undefined,
): void {
  const op = operationName(call, record?.requestType ?? call.codec.requestType);
  const now = performance.now();
  const attempts = decisionOf(record)?.attempts ?? [];
  if (sent.length > 0) endSent(writer, queue, op, sent, attempts, now);
  else traceOnlyAttempts(writer, queue, call, server, op, attempts);
  const failed = record === undefined || record.status >= 500;
  queue.push(
    writer.write(server, {
      name: `${op} ${call.modelRequested}`,
      kind: call.batchItem === undefined ? KIND_SERVER : KIND_CONSUMER,
      end: now,
      link,
      status: failed
        ? { code: STATUS_ERROR, message: record ? errorType(record.status, record.error) : 'no answer' }
        : undefined,
      attributes(sink) {
        serverAttributes(call, op, record, held, sink);
        if (captureContent) contentAttributes(call, record, sink);
      },
    }),
  );
}

/**
 * Pairs each request sent with its record in the decision trace, in order, by model and provider (a
 * credential tried and failed over inside one step has no record of its own: it ends where the next
 * request began). The served attempt lasts to the end of the call, its stream included.
 */
function endSent(
  writer: SpanWriter,
  queue: SpanQueue,
  op: string,
  sent: readonly Sent[],
  attempts: readonly AttemptRecord[],
  now: number,
): void {
  const used = new Set<number>();
  sent.forEach((s, i) => {
    const j = attempts.findIndex((a, k) => !used.has(k) && a.model === s.model && a.provider === s.vendorAsSent);
    if (j >= 0) used.add(j);
    const a = j >= 0 ? attempts[j] : undefined;
    const end =
      a === undefined
        ? (sent[i + 1]?.span.start ?? now)
        : a.served === true
          ? now
          : Math.min(now, s.span.start + a.latency_ms);
    queue.push(
      writer.write(s.span, {
        name: `${op} ${s.model}`,
        kind: KIND_CLIENT,
        end,
        status: a === undefined || a.outcome === 'error' ? { code: STATUS_ERROR } : undefined,
        attributes(sink) {
          attemptAttributes(op, s.vendor, s.model, s.url, sink);
          if (a === undefined) sink.set(ERROR_TYPE, 'retried');
          else attemptOutcomeAttributes(a, sink);
        },
      }),
    );
  });
}

/**
 * Calls whose attempts were not seen as they left (embeddings, pass-through) still show one client
 * span per attempt, placed one after another from the start of the call by their recorded latency.
 */
function traceOnlyAttempts(
  writer: SpanWriter,
  queue: SpanQueue,
  call: ProxyCall,
  server: OpenSpan,
  op: string,
  attempts: readonly AttemptRecord[],
): void {
  let at = call.started;
  for (const a of attempts) {
    const span = openChild(server, at);
    at += a.latency_ms;
    queue.push(
      writer.write(span, {
        name: `${op} ${a.model}`,
        kind: KIND_CLIENT,
        end: at,
        status: a.outcome === 'error' ? { code: STATUS_ERROR } : undefined,
        attributes(sink) {
          attemptAttributes(op, a.provider, a.model, undefined, sink);
          attemptOutcomeAttributes(a, sink);
        },
      }),
    );
  }
}
