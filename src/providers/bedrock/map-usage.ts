import type { Usage } from '../../ir/types.ts';
import { num, rec } from './narrow.ts';

/** Converse `inputTokens` already excludes cache reads and writes, matching IR `input`. */
export function mapConverseUsage(usage: unknown): Usage {
  const u = rec(usage);
  const out: Usage = { input: num(u.inputTokens) ?? 0, output: num(u.outputTokens) ?? 0 };
  const read = num(u.cacheReadInputTokens);
  const write = num(u.cacheWriteInputTokens);
  if (read) out.cacheRead = read;
  if (write) out.cacheWrite = write;
  return out;
}
