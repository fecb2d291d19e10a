// Same-family pass-through body: the caller's JSON with only the gateway's own edits, so fields this
// gateway does not model (logprobs, service_tier, prediction, ...) reach an alpha-wire upstream untouched.
import type { PassthroughOptions } from '../../shared/codec.ts';
import { withMemberAdded } from '../../shared/json-scan.ts';
import { hasGatewayKeys, rawWithModel } from '../../shared/passthrough.ts';
import { withoutExtensions } from '../../shared/svc.ts';

const FORCED_USAGE = '"stream_options":{"include_usage":true}';

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

/**
 * The caller's own JSON text with the model rewritten (and, when `forceUsage`, the usage option
 * added), or undefined when another edit is needed and the parsed body must be serialized instead:
 * gateway keys to strip, a `user` override, `stream_options` to merge into, or no raw text at all.
 */
export function rawForPassthrough(
  body: Record<string, unknown>,
  model: string,
  opts: PassthroughOptions,
  forceUsage: boolean,
): string | undefined {
  if (opts.rawBody === undefined || opts.userOverride !== undefined || hasGatewayKeys(body)) return undefined;
  if (forceUsage && body.stream_options !== undefined) return undefined;
  const raw = rawWithModel(opts.rawBody, model);
  return raw !== undefined && forceUsage ? withMemberAdded(raw, FORCED_USAGE) : raw;
}
