// The relay of an alpha-wire upstream's stream to an alpha caller. Most chunks carry a text delta and
// go out as the upstream's own bytes after a scan for their text and finish reason. A chunk is parsed
// only when a SPEC rule may edit it (tool-call fragments are held until the finish chunk; the usage
// chunk the gateway asked for is hidden from callers who did not) or when it reports an error.
import type { StreamSummary } from '../../../ir/outcome.ts';
import type { StopReason } from '../../../ir/types.ts';
import { isRecord } from '../../../util/json.ts';
import type { PassthroughStream } from '../../shared/codec.ts';
import { scanMembers, skipSpace, stringAt, withoutMemberAt, withoutNullMember } from '../../shared/json-scan.ts';
import { sseRecord, upstreamStreamError } from '../../shared/passthrough.ts';
import { SSE_DONE, sseData } from '../../shared/sse.ts';
import { PassthroughToolAccumulator } from './passthrough-tools.ts';

/** The members the scan looks for, and their indexes in its results. */
const NAMES = ['choices', 'content', 'finish_reason', 'usage', 'tool_calls', 'error'] as const;
const CHOICES = 0;
const CONTENT = 1;
const FINISH = 2;
const USAGE = 3;
const TOOL_CALLS = 4;
const ERROR = 5;

const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/**
 * The text before the name of the `choices` member whose value starts at `choices`, when no scanned
 * name was found before it (`at` holds the first value of each); undefined otherwise.
 */
function headBefore(data: string, choices: number, at: readonly number[]): string | undefined {
  const name = data.lastIndexOf('"choices"', choices);
  if (name < 0) return undefined;
  for (const a of at) if (a >= 0 && a < name) return undefined;
  return data.slice(0, name);
}

export class AlphaPassthroughStream implements PassthroughStream {
  readonly #summary: StreamSummary;
  readonly #callerWantsUsage: boolean;
  /** Made by the first parsed chunk: a plain text stream never needs one. */
  #tools: PassthroughToolAccumulator | undefined;
  /** Scan results, reused from chunk to chunk. */
  readonly #at: number[] = [];
  readonly #count: number[] = [];
  /**
   * The text before the `choices` member of the last chunk that took the scanned path, when it held
   * none of the scanned names. A vendor repeats it in every chunk (id, object, created, model,
   * fingerprint: over half of a text delta's record), so a chunk that starts with it is scanned from
   * `choices` on.
   */
  #head: string | undefined;

  constructor(summary: StreamSummary, callerWantsUsage: boolean) {
    this.#summary = summary;
    this.#callerWantsUsage = callerWantsUsage;
  }

  push(_event: string | undefined, data: string): string {
    if (data === '[DONE]') return SSE_DONE;
    return this.#scanned(data) ?? this.#parsed(data);
  }

  end(): string {
    let out = '';
    for (const c of this.#tools?.end() ?? []) out += sseData(c);
    return out;
  }

  /**
   * A chunk with one choice carrying text or a finish reason, no tool-call fragments and at most
   * `"usage":null` goes out as sent (less that null for a caller who did not ask for usage). Any
   * other chunk gives undefined and takes the parsed path: no choices (the usage chunk, a vendor's
   * prompt filter results), several choices or logprobs (repeated names), tool calls, errors.
   * Nothing is recorded before the chunk is known to fit.
   */
  #scanned(data: string): string | undefined {
    const at = this.#at;
    const count = this.#count;
    const head = this.#head;
    // A slice compared whole: startsWith measured several times slower at this length.
    const from = head !== undefined && data.slice(0, head.length) === head ? head.length : 0;
    scanMembers(data, NAMES, at, count, from);
    if (count[TOOL_CALLS] > 0 || count[ERROR] > 0 || count[CHOICES] !== 1 || count[CONTENT] > 1 || count[FINISH] > 1)
      return undefined;
    if (count[USAGE] > 1 || (count[USAGE] === 1 && !data.startsWith('null', at[USAGE]))) return undefined;
    const choices = at[CHOICES];
    if (data.charCodeAt(choices) !== 91 /* [ */ || data.charCodeAt(skipSpace(data, choices + 1)) === 93 /* ] */)
      return undefined;
    if (from === 0) this.#head = headBefore(data, choices, at);
    const finish = at[FINISH] < 0 ? undefined : stringAt(data, at[FINISH]);
    // Held tool calls go out whole on the finish chunk, which the accumulator must see.
    if (finish !== undefined && this.#tools !== undefined) return undefined;
    const summary = this.#summary;
    if (at[CONTENT] >= 0) summary.text += stringAt(data, at[CONTENT]) ?? '';
    if (finish !== undefined) summary.stopReason = FINISH_REASONS[finish] ?? 'end_turn';
    const out = at[USAGE] >= 0 && !this.#callerWantsUsage ? withoutMemberAt(data, at[USAGE], at[USAGE] + 4) : data;
    return sseRecord(undefined, out);
  }

  #parsed(data: string): string {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return sseRecord(undefined, data);
    }
    if (!isRecord(chunk)) return sseRecord(undefined, data);
    const summary = this.#summary;
    if (isRecord(chunk.error)) {
      summary.error = upstreamStreamError(chunk.error);
      return sseRecord(undefined, data);
    }
    if (isRecord(chunk.usage)) {
      const u = chunk.usage;
      // prompt_tokens counts cache reads; the IR's input does not.
      const cached = isRecord(u.prompt_tokens_details) ? num(u.prompt_tokens_details.cached_tokens) : 0;
      summary.usage = { input: num(u.prompt_tokens) - cached, output: num(u.completion_tokens), cacheRead: cached };
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    if (choices.length === 0) return this.#callerWantsUsage ? sseRecord(undefined, data) : '';
    for (const c of choices) {
      if (!isRecord(c)) continue;
      if (isRecord(c.delta) && typeof c.delta.content === 'string') summary.text += c.delta.content;
      if (typeof c.finish_reason === 'string') summary.stopReason = FINISH_REASONS[c.finish_reason] ?? 'end_turn';
    }
    this.#tools ??= new PassthroughToolAccumulator();
    const out = this.#tools.push(chunk);
    // An unchanged chunk keeps its bytes; only an edited one is serialized again.
    if (out.length === 1 && out[0] === chunk) {
      if (this.#callerWantsUsage || !('usage' in chunk)) return sseRecord(undefined, data);
      const trimmed = chunk.usage === null ? withoutNullMember(data, 'usage') : undefined;
      if (trimmed !== undefined) return sseRecord(undefined, trimmed);
    }
    let text = '';
    for (const o of out) {
      if (!this.#callerWantsUsage) delete o.usage;
      text += sseData(o);
    }
    return text;
  }
}
