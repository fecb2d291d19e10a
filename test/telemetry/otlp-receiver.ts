// An OTLP/HTTP collector on loopback for tests: it takes `POST /v1/traces`, decodes the body with the
// protobuf definitions generated from the official opentelemetry-proto files (as an older
// @opentelemetry/otlp-transformer shipped them), and keeps the spans. It can also refuse (down) or
// answer late (slow), to show what a failing collector costs the gateway.

import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

type Scalar = string | number | boolean;
export type AttrValue = Scalar | Scalar[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 5 consumer. */
  kind: number;
  /** The spans this one links to (work created by another call). */
  links: Array<{ traceId: string; spanId: string }>;
  attributes: Record<string, AttrValue>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  startNs: bigint;
  endNs: bigint;
  resource: Record<string, AttrValue>;
}

// The generated module is plain protobufjs static code without types; these are the fields read.
interface PbAnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: number | { toString(): string } | null;
  doubleValue?: number | null;
  arrayValue?: { values?: PbAnyValue[] | null } | null;
}
interface PbKeyValue {
  key: string;
  value?: PbAnyValue | null;
}
interface PbSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId?: Uint8Array | null;
  name: string;
  kind: number;
  startTimeUnixNano: number | { toString(): string };
  endTimeUnixNano: number | { toString(): string };
  attributes?: PbKeyValue[] | null;
  status?: { code?: number | null } | null;
  links?: Array<{ traceId: Uint8Array; spanId: Uint8Array }> | null;
}
interface PbRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: PbKeyValue[] | null } | null;
    scopeSpans?: Array<{ spans?: PbSpan[] | null }> | null;
  }> | null;
}
interface PbHistogramPoint {
  attributes?: PbKeyValue[] | null;
  count?: number | { toString(): string } | null;
  sum?: number | null;
}
interface PbMetricsRequest {
  resourceMetrics?: Array<{
    scopeMetrics?: Array<{
      metrics?: Array<{
        name: string;
        unit?: string | null;
        histogram?: { dataPoints?: PbHistogramPoint[] | null } | null;
      }> | null;
    }> | null;
  }> | null;
}
interface PbRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): PbRequest } } };
        metrics: { v1: { ExportMetricsServiceRequest: { decode(b: Uint8Array): PbMetricsRequest } } };
      };
    };
  };
}

const root = createRequire(import.meta.url)('otlp-proto-definitions/build/src/generated/root.js') as PbRoot;
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const ExportMetricsServiceRequest = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

/** One histogram data point of an exported metric. */
export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, AttrValue>;
  count: number;
  sum: number;
}

/** The histogram points of one metrics export request, flattened. */
export function decodeMetrics(body: Uint8Array): ReceivedPoint[] {
  const out: ReceivedPoint[] = [];
  for (const rm of ExportMetricsServiceRequest.decode(body).resourceMetrics ?? [])
    for (const sm of rm.scopeMetrics ?? [])
      for (const m of sm.metrics ?? [])
        for (const p of m.histogram?.dataPoints ?? [])
          out.push({
            metric: m.name,
            unit: m.unit ?? '',
            attributes: attrs(p.attributes),
            count: Number((p.count ?? 0).toString()),
            sum: p.sum ?? 0,
          });
  return out;
}

function attrValue(v: PbAnyValue | null | undefined): AttrValue {
  if (v == null) return '';
  if (v.stringValue != null) return v.stringValue;
  if (v.boolValue != null) return v.boolValue;
  if (v.intValue != null) return Number(v.intValue.toString());
  if (v.doubleValue != null) return v.doubleValue;
  if (v.arrayValue != null) return (v.arrayValue.values ?? []).map((x) => attrValue(x) as Scalar);
  return '';
}

function attrs(list: PbKeyValue[] | null | undefined): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const kv of list ?? []) out[kv.key] = attrValue(kv.value);
  return out;
}

const hex = (b: Uint8Array | null | undefined): string => (b ? Buffer.from(b).toString('hex') : '');

/** The spans of one export request, flattened. */
export function decodeTraces(body: Uint8Array): ReceivedSpan[] {
  const req = ExportTraceServiceRequest.decode(body);
  const out: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: s.kind,
          links: (s.links ?? []).map((l) => ({ traceId: hex(l.traceId), spanId: hex(l.spanId) })),
          attributes: attrs(s.attributes),
          status: s.status?.code ?? 0,
          startNs: BigInt(s.startTimeUnixNano.toString()),
          endNs: BigInt(s.endTimeUnixNano.toString()),
          resource,
        });
      }
    }
  }
  return out;
}

export type ReceiverMode = 'ok' | 'fail' | { delayMs: number };

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Histogram points received on /v1/metrics, in order of arrival. */
  points: ReceivedPoint[];
  /** Export requests received, whatever was answered. */
  requests: number;
  /** Content types and paths seen, to show what the exporter sent. */
  seen: Array<{ path: string; contentType: string; headers: Record<string, string | string[] | undefined> }>;
  mode: ReceiverMode;
  /** Stops listening, as a collector that is down: connections are refused. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  /** Resolves once spans matching `pick` have arrived (bounded: rejects after `ms`). */
  waitFor(pick: (s: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    points: [],
    requests: 0,
    seen: [],
    mode: 'ok',
    async waitFor(pick, ms = 10_000) {
      const until = Date.now() + ms;
      while (!pick(receiver.spans)) {
        if (Date.now() > until) throw new Error(`spans not received in ${ms} ms (have ${receiver.spans.length})`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return receiver.spans;
    },
    close: () => receiver.stop(),
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
    restart: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.requests++;
      receiver.seen.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', headers: req.headers });
      const mode = receiver.mode;
      if (req.url === '/v1/metrics' && mode === 'ok') {
        receiver.points.push(...decodeMetrics(Buffer.concat(chunks)));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      if (req.url !== '/v1/traces' || mode === 'fail') {
        // 400: a refusal the exporter does not retry, so the loss shows at once.
        res.writeHead(mode === 'fail' ? 400 : 404).end();
        return;
      }
      const answer = () => {
        receiver.spans.push(...decodeTraces(Buffer.concat(chunks)));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      };
      if (typeof mode === 'object') setTimeout(answer, mode.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${port}`;
  return receiver;
}
