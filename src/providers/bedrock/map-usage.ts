import type { Usage } from '../../ir/types.ts';
import { asNumber, asRecord } from '../../util/json.ts';

/** Converse `inputTokens` already excludes cache reads and writes, matching IR `input`. */
export function mapConverseUsage(usage: unknown): Usage {
  const u = asRecord(usage);
  const out: Usage = { input: asNumber(u.inputTokens) ?? 0, output: asNumber(u.outputTokens) ?? 0 };
  const read = asNumber(u.cacheReadInputTokens);
  const write = asNumber(u.cacheWriteInputTokens);
  if (read) out.cacheRead = read;
  if (write) out.cacheWrite = write;
  return out;
}
