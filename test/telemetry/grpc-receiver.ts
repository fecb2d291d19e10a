// An OTLP/gRPC collector on loopback for tests: a real @grpc/grpc-js server implementing the
// collector's TraceService/Export, each request decoded with the official definitions through the
// HTTP receiver's decoder (otlp-receiver.ts), so both transports are checked against the same thing.
import * as grpc from '@grpc/grpc-js';
import { decodeTraces, type ReceivedSpan } from './otlp-receiver.ts';

export interface GrpcReceiver {
  /** `http://127.0.0.1:port`, as OTEL_EXPORTER_OTLP_ENDPOINT takes a gRPC collector. */
  url: string;
  spans: ReceivedSpan[];
  /** The metadata of each Export call, in order of arrival. */
  metadata: Array<Record<string, string>>;
  waitFor(pick: (s: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

// The bytes pass through as they are: decoding is the receiver's part, with the official definitions.
const asIs = (b: Buffer): Buffer => b;

const TRACE_SERVICE: grpc.ServiceDefinition = {
  Export: {
    path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: asIs,
    requestDeserialize: asIs,
    // ExportTraceServiceResponse with no partial_success: the empty message.
    responseSerialize: asIs,
    responseDeserialize: asIs,
  },
};

export async function startGrpcReceiver(): Promise<GrpcReceiver> {
  const server = new grpc.Server();
  const receiver: GrpcReceiver = {
    url: '',
    spans: [],
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
  server.addService(TRACE_SERVICE, {
    Export(call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) {
      const md: Record<string, string> = {};
      for (const [k, v] of Object.entries(call.metadata.getMap())) md[k] = String(v);
      receiver.metadata.push(md);
      try {
        receiver.spans.push(...decodeTraces(call.request));
        callback(null, Buffer.alloc(0));
      } catch (err) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: String(err) });
      }
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  receiver.url = `http://127.0.0.1:${port}`;
  return receiver;
}
