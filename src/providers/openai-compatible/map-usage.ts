// OpenAI usage -> IR usage. `prompt_tokens` includes cached tokens; the IR's `input` does not.
import type { Usage } from '../../ir/types.ts';
import { asNumber, asRecord, isRecord } from '../../util/json.ts';

export function mapUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const prompt = asNumber(raw.prompt_tokens) ?? 0;
  const cached = asNumber(asRecord(raw.prompt_tokens_details).cached_tokens);
  const usage: Usage = { input: Math.max(0, prompt - (cached ?? 0)), output: asNumber(raw.completion_tokens) ?? 0 };
  if (cached !== undefined && cached > 0) usage.cacheRead = cached;
  return usage;
}

/** Responses API usage (`input_tokens` with `input_tokens_details.cached_tokens`, `output_tokens`). */
export function mapResponsesUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const input = asNumber(raw.input_tokens) ?? 0;
  const cached = asNumber(asRecord(raw.input_tokens_details).cached_tokens);
  const usage: Usage = { input: Math.max(0, input - (cached ?? 0)), output: asNumber(raw.output_tokens) ?? 0 };
  if (cached !== undefined && cached > 0) usage.cacheRead = cached;
  return usage;
}
