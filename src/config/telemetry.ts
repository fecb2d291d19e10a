// OpenTelemetry settings, from the standard OTEL_* variables (and SWITCHYARD_OTEL_NO_PROPAGATION,
// SWITCHYARD_TRACE_URL_TEMPLATE).
import { nonEmpty, parseBool, parseList } from './parse.ts';

/** From the standard OTEL_* variables, read here so that tests and the CLI pass them like any setting. */
export interface TelemetryConfig {
  /** http/protobuf: the full traces URL (`.../v1/traces`); grpc: the collector's address. */
  tracesUrl: string;
  protocol: 'http/protobuf' | 'grpc';
  headers: Record<string, string>;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  /** OTEL_TRACES_SAMPLER as named by the spec (`parentbased_always_on` by default). */
  sampler: string;
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers. */
  samplerRatio: number;
  /** Vendors whose upstream requests carry no `traceparent` (SWITCHYARD_OTEL_NO_PROPAGATION; `*`: all). */
  noPropagation: readonly string[];
  /** OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT: how long one export may take before it counts as failed. */
  timeoutMs: number;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: input and output messages on the server span. */
  captureContent: boolean;
  /** False with OTEL_TRACES_EXPORTER=none (metrics only). */
  traces: boolean;
  /** OTEL_METRICS_EXPORTER=otlp: the metrics URL (`.../v1/metrics` over http/protobuf, the base over grpc); null when off. */
  metricsUrl: string | null;
  /** OTEL_EXPORTER_OTLP_METRICS_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL. */
  metricsProtocol: 'http/protobuf' | 'grpc';
  /** OTEL_METRIC_EXPORT_INTERVAL: how often metrics are sent. */
  metricsIntervalMs: number;
}

export function parseTraceUrlTemplate(raw: string | null): string | null {
  if (raw === null) return null;
  if (!raw.includes('{trace_id}') || !/^https?:\/\//.test(raw))
    throw new Error(`SWITCHYARD_TRACE_URL_TEMPLATE must be an http(s) URL with {trace_id} in it, got "${raw}"`);
  return raw;
}

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** `k=v,k2=v2` with percent-encoded values, as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES are. */
function parseOtelPairs(raw: string | null, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of raw === null ? [] : raw.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`${name} entries must be key=value, got "${pair.trim()}"`);
    out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

export function parseTelemetry(env: NodeJS.ProcessEnv): TelemetryConfig | null {
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if ((traces === null && base === null) || parseBool(nonEmpty(env.OTEL_SDK_DISABLED), 'OTEL_SDK_DISABLED', false))
    return null;
  const protocol =
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'grpc')
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or grpc, got "${protocol}"`);
  const sampler = (nonEmpty(env.OTEL_TRACES_SAMPLER) ?? 'parentbased_always_on').toLowerCase();
  if (!SAMPLERS.includes(sampler))
    throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${sampler}"`);
  const ratioRaw = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = ratioRaw === null ? 1 : Number(ratioRaw);
  if (!(ratio >= 0 && ratio <= 1))
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${ratioRaw}"`);
  // The signal-specific variable is the URL as it is; the general one is a base the path is added to.
  const signalUrl = (own: string | null, path: string) =>
    own ?? (protocol === 'grpc' ? (base as string) : `${(base as string).replace(/\/+$/, '')}/${path}`);
  const tracesUrl = signalUrl(traces, 'v1/traces');
  const timeoutRaw = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TIMEOUT);
  const timeoutMs = timeoutRaw === null ? 10_000 : Number(timeoutRaw);
  if (!(Number.isInteger(timeoutMs) && timeoutMs > 0))
    throw new Error(`OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds, got "${timeoutRaw}"`);
  const metricsExporter = (nonEmpty(env.OTEL_METRICS_EXPORTER) ?? 'none').toLowerCase();
  if (metricsExporter !== 'none' && metricsExporter !== 'otlp')
    throw new Error(`OTEL_METRICS_EXPORTER must be otlp or none, got "${metricsExporter}"`);
  const metricsOwn = nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  if (metricsExporter === 'otlp' && metricsOwn === null && base === null)
    throw new Error(
      'OTEL_METRICS_EXPORTER=otlp needs OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
    );
  const metricsProtocol =
    nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (metricsProtocol !== 'http/protobuf' && metricsProtocol !== 'grpc')
    throw new Error(`OTEL_EXPORTER_OTLP_METRICS_PROTOCOL must be http/protobuf or grpc, got "${metricsProtocol}"`);
  const tracesExporter = (nonEmpty(env.OTEL_TRACES_EXPORTER) ?? 'otlp').toLowerCase();
  if (tracesExporter !== 'none' && tracesExporter !== 'otlp')
    throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none, got "${tracesExporter}"`);
  const intervalRaw = nonEmpty(env.OTEL_METRIC_EXPORT_INTERVAL);
  const metricsIntervalMs = intervalRaw === null ? 60_000 : Number(intervalRaw);
  if (!(Number.isInteger(metricsIntervalMs) && metricsIntervalMs > 0))
    throw new Error(`OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds, got "${intervalRaw}"`);
  if (tracesExporter === 'none' && metricsExporter === 'none') return null;
  return {
    tracesUrl,
    protocol,
    headers: {
      ...parseOtelPairs(nonEmpty(env.OTEL_EXPORTER_OTLP_HEADERS), 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseOtelPairs(nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? 'switchyard',
    resourceAttributes: parseOtelPairs(nonEmpty(env.OTEL_RESOURCE_ATTRIBUTES), 'OTEL_RESOURCE_ATTRIBUTES'),
    sampler,
    samplerRatio: ratio,
    noPropagation: parseList(nonEmpty(env.SWITCHYARD_OTEL_NO_PROPAGATION)),
    timeoutMs,
    captureContent: parseBool(
      nonEmpty(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
      'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
      false,
    ),
    traces: tracesExporter === 'otlp',
    metricsUrl:
      metricsExporter !== 'otlp'
        ? null
        : (metricsOwn ??
          (metricsProtocol === 'grpc' ? (base as string) : `${(base as string).replace(/\/+$/, '')}/v1/metrics`)),
    metricsProtocol,
    metricsIntervalMs,
  };
}
