// Same-family pass-through body for messages-style upstreams: the caller's JSON with only the gateway's
// edits, so fields this gateway does not model (output_config, service_tier, citations, ...) survive.
import { hasGatewayKeys, rawWithModel } from '../../shared/passthrough.ts';
import { withoutExtensions } from '../../shared/svc.ts';

/**
 * Returns the JSON text to send upstream: `model` rewritten, `metadata` and `svc:*` keys removed. The
 * caller's own text (`raw`) is kept byte for byte apart from the model when there is nothing to remove.
 */
export function stripBetaForPassthrough(body: Record<string, unknown>, model: string, raw?: string): string {
  const kept = raw === undefined || hasGatewayKeys(body) ? undefined : rawWithModel(raw, model);
  if (kept !== undefined) return kept;
  const out = withoutExtensions(body);
  out.model = model;
  return JSON.stringify(out);
}
