// An OTLP/gRPC collector on loopback for tests: a real @grpc/grpc-js server implementing the
// collector's TraceService/Export and MetricsService/Export, each request decoded with the official
// definitions through the HTTP receiver's decoders (otlp-receiver.ts), so both transports are checked
// against the same thing.
import * as grpc from '@grpc/grpc-js';
import { decodeMetrics, decodeTraces, type ReceivedPoint, type ReceivedSpan } from './otlp-receiver.ts';

export interface GrpcReceiver {
  /** `http://127.0.0.1:port`, as OTEL_EXPORTER_OTLP_ENDPOINT takes a gRPC collector. */
  url: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** The metadata of each Export call, in order of arrival. */
  metadata: Array<Record<string, string>>;
  waitFor(pick: (s: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

// The bytes pass through as they are: decoding is the receiver's part, with the official definitions.
const asIs = (b: Buffer): Buffer => b;

/** A collector service's unary Export; its response with no partial_success is the empty message. */
const exportService = (path: string): grpc.ServiceDefinition => ({
  Export: {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: asIs,
    requestDeserialize: asIs,
    responseSerialize: asIs,
    responseDeserialize: asIs,
  },
});
const TRACE_SERVICE = exportService('/opentelemetry.proto.collector.trace.v1.TraceService/Export');
const METRICS_SERVICE = exportService('/opentelemetry.proto.collector.metrics.v1.MetricsService/Export');

export async function startGrpcReceiver(): Promise<GrpcReceiver> {
  const server = new grpc.Server();
  const receiver: GrpcReceiver = {
    url: '',
    spans: [],
    points: [],
    metadata: [],
    async waitFor(pick, ms = 10_000) {
      const until = Date.now() + ms;
      while (!pick(receiver.spans)) {
        if (Date.now() > until) throw new Error(`spans not received in ${ms} ms (have ${receiver.spans.length})`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return receiver.spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
  const exporting =
    (take: (body: Buffer) => void) =>
    (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const md: Record<string, string> = {};
      for (const [k, v] of Object.entries(call.metadata.getMap())) md[k] = String(v);
      receiver.metadata.push(md);
      try {
        take(call.request);
        callback(null, Buffer.alloc(0));
      } catch (err) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: String(err) });
      }
    };
  server.addService(TRACE_SERVICE, { Export: exporting((b) => receiver.spans.push(...decodeTraces(b))) });
  server.addService(METRICS_SERVICE, { Export: exporting((b) => receiver.points.push(...decodeMetrics(b))) });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  receiver.url = `http://127.0.0.1:${port}`;
  return receiver;
}
