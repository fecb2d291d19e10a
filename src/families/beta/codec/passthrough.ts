// Same-family pass-through body for messages-style upstreams: the caller's JSON with only the gateway's
// edits, so fields this gateway does not model (output_config, service_tier, citations, ...) survive.
import { withoutExtensions } from '../../shared/svc.ts';

/** Returns the JSON text to send upstream: `model` rewritten, `metadata` and `svc:*` keys removed. */
export function stripBetaForPassthrough(body: Record<string, unknown>, model: string): string {
  const out = withoutExtensions(body);
  out.model = model;
  return JSON.stringify(out);
}
