// The alpha wire's output options that have no IR slot (decode-params.ts only validates them) but
// change the answer, read from the caller's body for the cache's keys.
import { asNumber } from '../../../util/json.ts';
import type { WireExtras } from '../../shared/codec.ts';

/** Wrong types read as absent: the decoder already refused them. */
export function alphaWireExtras(body: Record<string, unknown>): WireExtras {
  const out: WireExtras = {};
  const n = asNumber(body.n);
  if (n !== undefined) out.n = n;
  if (typeof body.logprobs === 'boolean') out.logprobs = body.logprobs;
  const top = asNumber(body.top_logprobs);
  if (top !== undefined) out.topLogprobs = top;
  return out;
}
