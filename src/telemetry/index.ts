// OpenTelemetry for proxy calls, off unless an OTLP endpoint is configured. This file is the only one
// of the feature that the gateway imports statically, and it names no OpenTelemetry package: the SDK
// is imported when telemetry starts, so a gateway without an endpoint never loads it and its pipeline
// carries no telemetry hook at all. Traces (tracing.ts) and metrics (metrics.ts, only with
// OTEL_METRICS_EXPORTER=otlp) are one pipeline feature.
import type { TelemetryConfig } from '../config.ts';
import type { PipelineFeature } from '../pipeline/hooks.ts';
import type { Telemetry, TelemetryDeps } from './types.ts';

export type { Telemetry, TelemetryDeps } from './types.ts';

export async function startTelemetry(
  config: TelemetryConfig | null,
  deps: TelemetryDeps,
): Promise<Telemetry | undefined> {
  if (config === null) return undefined;
  const tracing = config.traces ? await (await import('./tracing.ts')).startTracing(config, deps) : undefined;
  const metrics =
    config.metricsUrl === null
      ? undefined
      : await (await import('./metrics.ts')).startMetrics(config, config.metricsUrl);
  const feature: PipelineFeature = {
    ...(tracing?.feature.beforeRoute ? { beforeRoute: tracing.feature.beforeRoute } : {}),
    ...(metrics ? { afterResponse: metrics.afterResponse } : {}),
    ...(tracing?.links ? { traceLinks: tracing.links } : {}),
  };
  return {
    feature,
    links: tracing?.links,
    flush: async () => {
      await Promise.all([tracing?.flush(), metrics?.flush()]);
    },
    shutdown: async () => {
      await Promise.all([tracing?.shutdown(), metrics?.shutdown()]);
    },
  };
}
