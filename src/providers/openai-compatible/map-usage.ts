// OpenAI usage -> IR usage. `prompt_tokens` includes cached tokens; the IR's `input` does not.
import type { Usage } from '../../ir/types.ts';
import { asNumber, asRecord, isRecord } from '../../util/json.ts';

export function mapUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  return usageOf(raw.prompt_tokens, raw.prompt_tokens_details, raw.completion_tokens);
}

/** Responses API usage (`input_tokens` with `input_tokens_details.cached_tokens`, `output_tokens`). */
export function mapResponsesUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  return usageOf(raw.input_tokens, raw.input_tokens_details, raw.output_tokens);
}

/** Both APIs count cached tokens inside the input figure; the IR counts them apart. */
function usageOf(inputRaw: unknown, details: unknown, outputRaw: unknown): Usage {
  const input = asNumber(inputRaw) ?? 0;
  const cached = asNumber(asRecord(details).cached_tokens);
  const usage: Usage = { input: Math.max(0, input - (cached ?? 0)), output: asNumber(outputRaw) ?? 0 };
  if (cached !== undefined && cached > 0) usage.cacheRead = cached;
  return usage;
}
