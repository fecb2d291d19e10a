// Same-family pass-through body: the caller's JSON with only the gateway's own edits, so fields this
// gateway does not model (logprobs, service_tier, prediction, ...) reach an alpha-wire upstream untouched.
import { withoutExtensions } from '../../shared/svc.ts';

/**
 * Returns the JSON text to send upstream: `model` rewritten, `svc:*` keys and `metadata` removed,
 * `user` replaced when an override (the X-Svc-User-Id header) is given, everything else as sent.
 */
export function stripForPassthrough(body: Record<string, unknown>, model: string, userOverride?: string): string {
  const out = withoutExtensions(body);
  out.model = model;
  if (userOverride !== undefined) out.user = userOverride;
  return JSON.stringify(out);
}
