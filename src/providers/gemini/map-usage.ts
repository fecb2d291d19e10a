import type { Usage } from '../../ir/types.ts';
import { num, rec } from './narrow.ts';

/**
 * `promptTokenCount` includes cached tokens while IR `input` excludes them (cache reads are billed
 * apart); `candidatesTokenCount` excludes thoughts, which are billed as output.
 */
export function mapGeminiUsage(usageMetadata: unknown): Usage {
  const u = rec(usageMetadata);
  const prompt = (num(u.promptTokenCount) ?? 0) + (num(u.toolUsePromptTokenCount) ?? 0);
  const cached = num(u.cachedContentTokenCount) ?? 0;
  const usage: Usage = {
    input: Math.max(0, prompt - cached),
    output: (num(u.candidatesTokenCount) ?? 0) + (num(u.thoughtsTokenCount) ?? 0),
  };
  if (cached > 0) usage.cacheRead = cached;
  return usage;
}
