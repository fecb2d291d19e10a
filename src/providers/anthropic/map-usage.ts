// Anthropic usage -> IR usage. `input_tokens` already excludes cache reads and writes, like the IR.
import type { Usage } from '../../ir/types.ts';
import { asNumber, isRecord } from '../../util/json.ts';

/** Only the fields present (stream deltas carry some of them; later values override earlier ones). */
export function mapPartialUsage(raw: unknown): Partial<Usage> {
  const out: Partial<Usage> = {};
  if (!isRecord(raw)) return out;
  const input = asNumber(raw.input_tokens);
  const output = asNumber(raw.output_tokens);
  const read = asNumber(raw.cache_read_input_tokens);
  const write = asNumber(raw.cache_creation_input_tokens);
  if (input !== undefined) out.input = input;
  if (output !== undefined) out.output = output;
  if (read !== undefined) out.cacheRead = read;
  if (write !== undefined) out.cacheWrite = write;
  return out;
}

export function mapUsage(raw: unknown): Usage {
  return { input: 0, output: 0, ...mapPartialUsage(raw) };
}
