// Which requests may use the cache, and which stored answers may serve them. Pure policy over the IR
// and the project's settings; the keys themselves are in key.ts. Refusal reasons are stable
// identifiers, meant for the decision trace (`cache: {skipped: "temperature_above_max"}`).

import type { ChatRequest, StopReason } from '../ir/types.ts';
import { promptText, type WireExtras } from './key.ts';
import type { CacheSettings } from './settings.ts';

export type Eligibility = { eligible: true } | { eligible: false; reason: string };

const ELIGIBLE: Eligibility = Object.freeze({ eligible: true });
const refuse = (reason: string): Eligibility => ({ eligible: false, reason });

/**
 * Whether a request may use the cache at all (both tiers). A cached entry holds one choice and no
 * log probabilities, so requests asking for more cannot be served from it; high temperatures ask for
 * variety (SPEC: "skip the cache by default"), and an unset temperature counts as 0 (DESIGN §7).
 */
export function cacheEligible(req: ChatRequest, settings: CacheSettings, extras: WireExtras = {}): Eligibility {
  if (extras.n !== undefined && extras.n > 1) return refuse('n_above_1');
  if (extras.logprobs === true) return refuse('logprobs');
  if ((req.params.temperature ?? 0) > settings.max_temperature) return refuse('temperature_above_max');
  return ELIGIBLE;
}

/**
 * Whether the semantic tier may answer, on top of cacheEligible. It compares prompt text only, so
 * anything whose meaning is not in the text is refused: images, tool calls and results (the answer
 * depends on data the embedding does not see), thinking blocks (they come with tool loops), an
 * assistant prefill (the answer continues it), and conversations longer than max_messages.
 */
export function semanticEligible(req: ChatRequest, settings: CacheSettings, extras: WireExtras = {}): Eligibility {
  const base = cacheEligible(req, settings, extras);
  if (!base.eligible) return base;
  const { messages } = req;
  if (messages.length > settings.max_messages) return refuse('too_many_messages');
  if (messages.length === 0) return refuse('empty_prompt');
  if (messages[messages.length - 1].role !== 'user') return refuse('assistant_prefill');
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'image') return refuse('images');
      if (b.type === 'tool_use' || b.type === 'tool_result') return refuse('tool_history');
      if (b.type === 'thinking' || b.type === 'redacted_thinking') return refuse('thinking_history');
    }
  }
  if (promptText(req).trim() === '') return refuse('empty_prompt');
  return ELIGIBLE;
}

/** What a stored answer must remember for fitsMaxTokens. */
export interface StoredLength {
  outputTokens: number;
  stopReason: StopReason;
  /** max_tokens of the request that produced it. */
  maxTokens?: number;
}

/**
 * Whether a stored answer can be served under this request's max_tokens (the bucket in the key is
 * only a coarse filter). An answer cut at its limit is the right answer only for that same limit; a
 * finished one fits any limit it does not exceed.
 */
export function fitsMaxTokens(req: ChatRequest, stored: StoredLength): boolean {
  const limit = req.params.maxTokens;
  if (stored.stopReason === 'max_tokens') return limit === stored.maxTokens;
  return limit === undefined || stored.outputTokens <= limit;
}
