// Values scripts/build-ui.js defines at build time.
import type { JsonSchema } from './lib/schema.ts';

declare global {
  /** The request-body schemas of POST and PATCH /manage/v1/routing-configs, from openapi.yaml. */
  const __CONFIG_SCHEMAS__: { create: JsonSchema; update: JsonSchema };
}
