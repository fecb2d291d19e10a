// The official OTLP exporters' transport (HTTP protobuf or gRPC: retries, timeouts, headers,
// concurrency) carrying batches of spans that spans.ts already wrote in protobuf: the serializer given
// to it only writes the request envelope, with the resource and the instrumentation scope, into the
// room the batch keeps for it in front of its spans.
import type { TelemetryConfig } from '../config.ts';
import { type AttrValue, ProtoWriter, varintSize } from './proto-writer.ts';
import type { BatchExporter, SpanBatch } from './queue.ts';

/** ExportTraceServiceRequest around a batch; `room` is what it needs in front of the spans, at most. */
export interface TraceEnvelope {
  readonly room: number;
  wrap(batch: SpanBatch): Uint8Array;
}

export function traceEnvelope(
  resource: Record<string, AttrValue>,
  scope: { name: string; version: string },
): TraceEnvelope {
  const head = new ProtoWriter(1024);
  // ResourceSpans.resource (1): Resource.attributes (1).
  const r = head.begin(1);
  for (const [k, v] of Object.entries(resource)) head.attr(1, k, v);
  head.end(r);
  const resourceBytes = head.take();
  // ScopeSpans.scope (1): InstrumentationScope name (1), version (2).
  const s = head.begin(1);
  head.stringField(1, scope.name);
  head.stringField(2, scope.version);
  head.end(s);
  const scopeBytes = head.take();
  return {
    // Two one-byte tags and two lengths of at most five bytes each.
    room: resourceBytes.length + scopeBytes.length + 12,
    wrap(batch) {
      const w = batch.w;
      const end = w.pos;
      const scopeSpans = scopeBytes.length + end - batch.room;
      const resourceSpans = resourceBytes.length + 1 + varintSize(scopeSpans) + scopeSpans;
      const start = end - (1 + varintSize(resourceSpans) + resourceSpans);
      w.pos = start;
      w.tag(1, 2); // ExportTraceServiceRequest.resource_spans
      w.varint(resourceSpans);
      w.raw(resourceBytes);
      w.tag(2, 2); // ResourceSpans.scope_spans
      w.varint(scopeSpans);
      w.raw(scopeBytes);
      w.pos = end;
      return w.buf.subarray(start, end);
    },
  };
}

interface Delegate {
  export(items: SpanBatch, done: (result: { code: number }) => void): void;
  shutdown(): Promise<void>;
}

export async function otlpSpanExporter(config: TelemetryConfig, envelope: TraceEnvelope): Promise<BatchExporter> {
  const serializer = { serializeRequest: (b: SpanBatch) => envelope.wrap(b), deserializeResponse: () => ({}) };
  const counted = { name: 'span' as const, countItems: (b: SpanBatch) => b.count };
  let delegate: Delegate;
  if (config.protocol === 'grpc') {
    // Loaded only for grpc: @grpc/grpc-js is the heaviest part of the SDK.
    const grpc = await import('@opentelemetry/otlp-grpc-exporter-base');
    const metadata = grpc.createEmptyMetadata();
    for (const [k, v] of Object.entries(config.headers)) metadata.set(k, v);
    delegate = grpc.createOtlpGrpcExportDelegate(
      grpc.convertLegacyOtlpGrpcOptions({ url: config.tracesUrl, metadata, timeoutMillis: config.timeoutMs }, 'TRACES'),
      serializer,
      'otlp_grpc_span_exporter',
      counted,
      undefined,
      'TraceExportService',
      '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    );
  } else {
    const http = await import('@opentelemetry/otlp-exporter-base/node-http');
    delegate = http.createOtlpHttpExportDelegate(
      http.convertLegacyHttpOptions(
        { url: config.tracesUrl, headers: config.headers, timeoutMillis: config.timeoutMs },
        'TRACES',
        'v1/traces',
        { 'Content-Type': 'application/x-protobuf' },
      ),
      serializer,
      'otlp_http_span_exporter',
      counted,
      undefined,
    );
  }
  return {
    room: envelope.room,
    export: (batch, done) => delegate.export(batch, (result) => done(result.code === 0)),
    shutdown: () => delegate.shutdown(),
  };
}
