// IR usage -> chat-completions usage. The IR counts `input` WITHOUT cache reads/writes (messages-style),
// while chat-completions' prompt_tokens includes cached tokens, so both cache counts are added back and
// cache reads are also reported as prompt_tokens_details.cached_tokens (wire-formats.md 3.6).
import type { JsonObject, Usage } from '../../../ir/types.ts';

export function alphaUsage(u: Partial<Usage>): JsonObject {
  const prompt = (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
  const completion = u.output ?? 0;
  const out: JsonObject = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (u.cacheRead !== undefined) out.prompt_tokens_details = { cached_tokens: u.cacheRead };
  return out;
}
