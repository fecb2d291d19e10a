// The resource every span and metric is sent with: OTEL_RESOURCE_ATTRIBUTES, then the service's name
// and version over them, on top of the SDK's defaults (telemetry.sdk.*).
import { defaultResource, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import type { TelemetryConfig } from '../config.ts';
import { gatewayVersion } from '../util/version.ts';

export function resourceOf(config: TelemetryConfig): Resource {
  return defaultResource().merge(
    resourceFromAttributes({
      ...config.resourceAttributes,
      'service.name': config.serviceName,
      'service.version': gatewayVersion(),
    }),
  );
}
