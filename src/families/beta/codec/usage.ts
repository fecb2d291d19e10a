// IR usage -> messages-API usage. The IR follows this wire's convention (input excludes cache reads and
// writes), so the counts map one to one; cache fields appear only when the upstream reported them.
import type { JsonObject, Usage } from '../../../ir/types.ts';

export function betaUsage(u: Partial<Usage>, withInput = true): JsonObject {
  const out: JsonObject = {};
  if (withInput) out.input_tokens = u.input ?? 0;
  out.output_tokens = u.output ?? 0;
  if (u.cacheRead !== undefined) out.cache_read_input_tokens = u.cacheRead;
  if (u.cacheWrite !== undefined) out.cache_creation_input_tokens = u.cacheWrite;
  return out;
}
