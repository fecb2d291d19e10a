// Tracing as the gateway runs it: the sampler named by OTEL_TRACES_SAMPLER (the SDK's own), the
// resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, and the official OTLP transport for
// the spans that feature.ts writes. No tracer provider is registered as the process's global one, so
// a library that also traces is not rerouted through it. Loaded only by index.ts, and only when an
// endpoint is set.
import { ROOT_CONTEXT, SamplingDecision, SpanKind } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { TelemetryConfig } from '../config.ts';
import { gatewayVersion } from '../util/version.ts';
import { otlpSpanExporter, traceEnvelope } from './exporter.ts';
import { tracingFeature } from './feature.ts';
import { traceLinks } from './links.ts';
import type { AttrValue } from './proto-writer.ts';
import { SpanQueue } from './queue.ts';
import { resourceOf } from './resource.ts';
import type { Sampling, Telemetry, TelemetryDeps } from './types.ts';

export async function startTracing(config: TelemetryConfig, deps: TelemetryDeps): Promise<Telemetry> {
  const resource = resourceOf(config);
  const attrs: Record<string, AttrValue> = {};
  for (const [k, v] of Object.entries(resource.attributes)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') attrs[k] = v;
  }
  const envelope = traceEnvelope(attrs, { name: 'switchyard', version: gatewayVersion() });
  const queue = new SpanQueue(await otlpSpanExporter(config, envelope), deps);
  const sampling = samplingOf(config);
  return {
    feature: tracingFeature(sampling, queue, new Set(config.noPropagation), config, deps),
    links: traceLinks(sampling, queue, deps),
    flush: () => queue.flush(),
    shutdown: () => queue.shutdown(),
  };
}

/**
 * OTEL_TRACES_SAMPLER as a per-call decision. The parent-based samplers follow the caller's sampled
 * flag and ask their root sampler (the SDK's own) only for calls without one; deciding that here
 * spares each call the context object the SDK's ParentBasedSampler would read the flag from.
 */
export function samplingOf(config: TelemetryConfig): Sampling {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  const parentBased = config.sampler.startsWith('parentbased_');
  let root: Sampler;
  switch (config.sampler) {
    case 'always_off':
    case 'parentbased_always_off':
      root = new AlwaysOffSampler();
      break;
    case 'traceidratio':
    case 'parentbased_traceidratio':
      root = ratio;
      break;
    default:
      root = new AlwaysOnSampler();
  }
  // The SDK's always-on and always-off samplers decide the same for every trace; asking them per call
  // would only cost their arguments and their answer.
  const fixed = root instanceof AlwaysOnSampler ? true : root instanceof AlwaysOffSampler ? false : undefined;
  return (parent, traceIdHex, name) => {
    if (parentBased && parent !== undefined) return parent.sampled;
    if (fixed !== undefined) return fixed;
    return (
      root.shouldSample(ROOT_CONTEXT, traceIdHex, name, SpanKind.SERVER, {}, []).decision ===
      SamplingDecision.RECORD_AND_SAMPLED
    );
  };
}
