// The official OTLP exporters' transport (HTTP protobuf or gRPC: retries, timeouts, headers,
// concurrency) carrying spans that spans.ts already wrote in protobuf: the serializer given to it
// only wraps them in the request envelope with the resource and the instrumentation scope.
import type { TelemetryConfig } from '../config.ts';
import { type AttrValue, ProtoWriter } from './proto-writer.ts';
import type { BatchExporter } from './spans.ts';

/** ExportTraceServiceRequest around a batch of spans, each already a ScopeSpans.spans entry body. */
export function traceRequestEncoder(
  resource: Record<string, AttrValue>,
  scope: { name: string; version: string },
): (spans: readonly Buffer[]) => Uint8Array {
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
  const w = new ProtoWriter(64 * 1024);
  return (spans) => {
    w.pos = 0;
    const rs = w.begin(1); // ExportTraceServiceRequest.resource_spans
    w.raw(resourceBytes);
    const ss = w.begin(2); // ResourceSpans.scope_spans
    w.raw(scopeBytes);
    for (const span of spans) w.bytesField(2, span); // ScopeSpans.spans
    w.end(ss);
    w.end(rs);
    return w.take();
  };
}

interface Delegate {
  export(items: Buffer[], done: (result: { code: number }) => void): void;
  shutdown(): Promise<void>;
}

export async function otlpSpanExporter(
  config: TelemetryConfig,
  encode: (spans: readonly Buffer[]) => Uint8Array,
): Promise<BatchExporter> {
  const serializer = { serializeRequest: encode, deserializeResponse: () => ({}) };
  const counted = { name: 'span' as const, countItems: (spans: Buffer[]) => spans.length };
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
    export: (spans, done) => delegate.export(spans, (result) => done(result.code === 0)),
    shutdown: () => delegate.shutdown(),
  };
}
