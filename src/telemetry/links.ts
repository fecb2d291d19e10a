// The TraceLinks port (src/ports/trace-links.ts) over the span queue: the server span of a batch
// endpoint call, and root spans linked to the call that created their work. A span not sampled still
// has a context (its `traceparent` says so with flags 00) and costs nothing at its end.
import type { LinkedKind, LinkedSpan, SpanAttr, TraceLinks } from '../ports/trace-links.ts';
import type { SpanQueue } from './queue.ts';
import { ERROR_TYPE } from './semconv.ts';
import {
  KIND_CLIENT,
  KIND_CONSUMER,
  KIND_SERVER,
  type OpenSpan,
  openRoot,
  parseTraceparent,
  SpanWriter,
  STATUS_ERROR,
  traceparentOf,
} from './spans.ts';
import type { RemoteParent, Sampling, TelemetryDeps } from './types.ts';

const KIND_INTERNAL = 1;
const KINDS: Record<LinkedKind, number> = { client: KIND_CLIENT, consumer: KIND_CONSUMER, internal: KIND_INTERNAL };

export function traceLinks(sampling: Sampling, queue: SpanQueue, deps: TelemetryDeps): TraceLinks {
  const writer = new SpanWriter(queue);
  const span = (name: string, kind: number, open: OpenSpan, link: RemoteParent | undefined): LinkedSpan => ({
    traceparent: traceparentOf(open),
    end(attributes, errorType) {
      if (!open.sampled) return;
      try {
        if (!writer.open(open, name, undefined, kind, performance.now())) return;
        for (const key in attributes) writer.put(key, attributes[key] as SpanAttr | null | undefined);
        if (errorType !== undefined) writer.set(ERROR_TYPE, errorType);
        writer.close(open, errorType === undefined ? undefined : STATUS_ERROR, errorType, link);
      } catch (err) {
        deps.onError(err);
      }
    },
  });
  return {
    openCall(name, traceparent, tracestate) {
      const parent = parseTraceparent(traceparent, tracestate);
      const open = openRoot(parent, false, performance.now());
      open.sampled = sampling(parent, open.traceHex, name);
      return span(name, KIND_SERVER, open, undefined);
    },
    startLinked(name, kind, link, startedAt) {
      const start = startedAt === undefined ? performance.now() : startedAt - performance.timeOrigin;
      const open = openRoot(undefined, false, start);
      // A root span: the sampler decides as for a call without a caller (links do not decide it).
      open.sampled = sampling(undefined, open.traceHex, name);
      return span(name, KINDS[kind], open, link === null ? undefined : parseTraceparent(link, undefined));
    },
  };
}
