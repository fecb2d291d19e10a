// The GenAI conventions' metrics over OTLP (OTEL_METRICS_EXPORTER=otlp), for operators without
// Prometheus: token usage, request duration, time to first token and time per output token, recorded
// from each call's record after the answer (an afterResponse hook). The SDK's own meter provider,
// never registered as the global one; loaded only by index.ts, and only when asked for.
import type { Attributes } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { TelemetryConfig } from '../config.ts';
import type { AfterResponseHook } from '../pipeline/hooks.ts';
import type { CallRecord } from '../pipeline/types.ts';
import { gatewayVersion } from '../util/version.ts';
import { errorType } from './attributes.ts';
import { resourceOf } from './resource.ts';
import * as sc from './semconv.ts';

// Bucket boundaries as the conventions advise them for each instrument.
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5];

export interface GenAiMetrics {
  afterResponse: AfterResponseHook;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The conventions' operation name from the record's request type (the record has no call kind). */
function operationOf(requestType: string): string {
  if (requestType === 'chat_completion' || requestType === 'message') return 'chat';
  return requestType.includes('embedding') ? 'embeddings' : requestType;
}

/** The official OTLP metric exporter for the configured transport; grpc's is loaded only when asked for. */
async function metricExporter(config: TelemetryConfig, url: string): Promise<PushMetricExporter> {
  if (config.metricsProtocol !== 'grpc')
    return new OTLPMetricExporter({ url, headers: config.headers, timeoutMillis: config.timeoutMs });
  const { OTLPMetricExporter: GrpcMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-grpc');
  const { createEmptyMetadata } = await import('@opentelemetry/otlp-grpc-exporter-base');
  const metadata = createEmptyMetadata();
  for (const [k, v] of Object.entries(config.headers)) metadata.set(k, v);
  return new GrpcMetricExporter({ url, metadata, timeoutMillis: config.timeoutMs });
}

export async function startMetrics(config: TelemetryConfig, metricsUrl: string): Promise<GenAiMetrics> {
  const reader = new PeriodicExportingMetricReader({
    exporter: await metricExporter(config, metricsUrl),
    exportIntervalMillis: config.metricsIntervalMs,
    exportTimeoutMillis: Math.min(config.timeoutMs, config.metricsIntervalMs),
  });
  const provider = new MeterProvider({ resource: resourceOf(config), readers: [reader] });
  const meter = provider.getMeter('switchyard', gatewayVersion());
  const histogram = (name: string, unit: string, description: string, buckets: number[]) =>
    meter.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: buckets } });
  const tokens = histogram(
    'gen_ai.client.token.usage',
    '{token}',
    'Input and output tokens of each call',
    TOKEN_BUCKETS,
  );
  const duration = histogram(
    'gen_ai.server.request.duration',
    's',
    'Time from the request to the last byte of the answer',
    DURATION_BUCKETS,
  );
  const ttft = histogram(
    'gen_ai.server.time_to_first_token',
    's',
    'Time from the request to the first byte of the upstream answer',
    TTFT_BUCKETS,
  );
  const tpot = histogram(
    'gen_ai.server.time_per_output_token',
    's',
    'Time per output token after the first',
    TPOT_BUCKETS,
  );
  return {
    afterResponse(record: CallRecord) {
      const attrs: Attributes = {
        [sc.GEN_AI_OPERATION_NAME]: operationOf(record.requestType),
        [sc.GEN_AI_REQUEST_MODEL]: record.modelRequested,
      };
      if (record.vendor !== null) attrs[sc.GEN_AI_PROVIDER_NAME] = sc.providerName(record.vendor);
      if (record.modelUsed !== null) attrs[sc.GEN_AI_RESPONSE_MODEL] = record.modelUsed;
      const failed = record.status >= 400;
      duration.record(
        record.latencyMs / 1000,
        failed ? { ...attrs, [sc.ERROR_TYPE]: errorType(record.status, record.error) } : attrs,
      );
      if (failed) return;
      tokens.record(record.usage.input, { ...attrs, [sc.GEN_AI_TOKEN_TYPE]: 'input' });
      tokens.record(record.usage.output, { ...attrs, [sc.GEN_AI_TOKEN_TYPE]: 'output' });
      if (record.ttfbMs === null) return;
      ttft.record(record.ttfbMs / 1000, attrs);
      if (record.usage.output > 1)
        tpot.record((record.latencyMs - record.ttfbMs) / 1000 / (record.usage.output - 1), attrs);
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
