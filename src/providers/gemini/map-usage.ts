import type { Usage } from '../../ir/types.ts';
import { asNumber, asRecord } from '../../util/json.ts';

/**
 * `promptTokenCount` includes cached tokens while IR `input` excludes them (cache reads are billed
 * apart); `candidatesTokenCount` excludes thoughts, which are billed as output.
 */
export function mapGeminiUsage(usageMetadata: unknown): Usage {
  const u = asRecord(usageMetadata);
  const prompt = (asNumber(u.promptTokenCount) ?? 0) + (asNumber(u.toolUsePromptTokenCount) ?? 0);
  const cached = asNumber(u.cachedContentTokenCount) ?? 0;
  const usage: Usage = {
    input: Math.max(0, prompt - cached),
    output: (asNumber(u.candidatesTokenCount) ?? 0) + (asNumber(u.thoughtsTokenCount) ?? 0),
  };
  if (cached > 0) usage.cacheRead = cached;
  return usage;
}
