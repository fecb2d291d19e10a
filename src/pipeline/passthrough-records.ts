// Same-family stream relays: each upstream record goes out unchanged unless a SPEC rule needs an
// edit (alpha: tool-call fragments held until the finish chunk, the usage chunk hidden from callers
// who did not ask for it; beta on Bedrock: event-stream frames re-framed as SSE).

import { fromUpstream } from '../errors/gateway-error.ts';
import { PassthroughToolAccumulator } from '../families/alpha/codec/stream-encoder.ts';
import type { Family, FamilyCodec } from '../families/shared/codec.ts';
import type { StreamSummary } from '../ir/outcome.ts';
import type { UpstreamErrorInfo } from '../ir/types.ts';
import { eventStreamException } from '../providers/registry.ts';
import type { UpstreamEvent } from '../providers/types.ts';
import { isRecord } from '../util/json.ts';

/** Turns upstream records into the caller's records (shared by both relay paths). */
export interface Processor {
  push(ev: UpstreamEvent): string[];
  end(): string[];
  fail(error: UpstreamErrorInfo): string[];
}

export interface PassthroughState {
  summary: StreamSummary;
  callerWantsUsage: boolean;
  tools: PassthroughToolAccumulator;
  sawTerminal: boolean;
  codec: FamilyCodec;
}

const RECORD: Record<Family, (state: PassthroughState, ev: UpstreamEvent) => string[]> = {
  alpha: passthroughAlphaRecord,
  beta: passthroughBetaRecord,
};

/** The same-family relay: upstream records out, edited only where a rule needs it. */
export function passthroughProcessor(codec: FamilyCodec, summary: StreamSummary, callerWantsUsage: boolean): Processor {
  const state: PassthroughState = {
    summary,
    callerWantsUsage,
    tools: new PassthroughToolAccumulator(),
    sawTerminal: false,
    codec,
  };
  const record = RECORD[codec.family];
  return {
    push: (ev) => record(state, ev),
    // Tool-call fragments still held when the upstream ended without a finish chunk.
    end: () => state.tools.end().map((c) => `data: ${JSON.stringify(c)}\n\n`),
    fail: (error) => {
      summary.error = error;
      return [codec.errorRecord(fromUpstream(error))];
    },
  };
}

type Rec = Record<string, unknown>;

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

const OPENAI_FINISH: Record<string, StreamSummary['stopReason']> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

export function passthroughAlphaRecord(state: PassthroughState, ev: UpstreamEvent): string[] {
  if (ev.data === '[DONE]') {
    state.sawTerminal = true;
    return ['data: [DONE]\n\n'];
  }
  let chunk: unknown;
  try {
    chunk = JSON.parse(ev.data);
  } catch {
    return [`data: ${ev.data}\n\n`];
  }
  if (!isRecord(chunk)) return [`data: ${ev.data}\n\n`];
  const { summary } = state;
  if (isRecord(chunk.error)) {
    summary.error = upstreamStreamError(chunk.error);
    return [`data: ${ev.data}\n\n`];
  }
  if (isRecord(chunk.usage)) {
    const u = chunk.usage;
    const cached = isRecord(u.prompt_tokens_details) ? num(u.prompt_tokens_details.cached_tokens) : 0;
    summary.usage = { input: num(u.prompt_tokens) - cached, output: num(u.completion_tokens), cacheRead: cached };
  }
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  if (choices.length === 0) return state.callerWantsUsage ? [`data: ${ev.data}\n\n`] : [];
  for (const c of choices) {
    if (!isRecord(c)) continue;
    if (isRecord(c.delta) && typeof c.delta.content === 'string') summary.text += c.delta.content;
    if (typeof c.finish_reason === 'string') summary.stopReason = OPENAI_FINISH[c.finish_reason] ?? 'end_turn';
  }
  const out = state.tools.push(chunk);
  // Unchanged chunks keep their original bytes; only rewritten ones are serialized again.
  if (out.length === 1 && out[0] === chunk) {
    if (state.callerWantsUsage || !('usage' in chunk)) return [`data: ${ev.data}\n\n`];
    const trimmed = chunk.usage === null ? withoutNullUsage(ev.data) : undefined;
    if (trimmed !== undefined) return [`data: ${trimmed}\n\n`];
  }
  if (!state.callerWantsUsage) for (const o of out) if ('usage' in o) delete o.usage;
  return out.map((o) => `data: ${JSON.stringify(o)}\n\n`);
}

const NULL_USAGE = /"usage"\s*:\s*null/g;

/**
 * The forced `include_usage` makes every chunk carry `"usage":null`, which a caller who did not ask
 * for usage never sees from the vendor. Cutting it out of the text saves a parse-to-serialize round
 * trip per chunk. A `"usage"` key followed by `:` cannot occur inside a JSON string (its quotes would
 * be escaped), so a single match is the top-level key the caller's parse showed null; anything
 * else (none, several) returns undefined and the caller re-serializes.
 */
export function withoutNullUsage(data: string): string | undefined {
  NULL_USAGE.lastIndex = 0;
  const m = NULL_USAGE.exec(data);
  if (!m || NULL_USAGE.exec(data) !== null) return undefined;
  NULL_USAGE.lastIndex = 0;
  let start = m.index;
  let end = start + m[0].length;
  // Take one neighbouring comma so the object stays valid: the one before if the key was not
  // first, else the one after.
  let i = start - 1;
  while (i >= 0 && isJsonSpace(data.charCodeAt(i))) i--;
  if (data[i] === ',') start = i;
  else {
    let j = end;
    while (j < data.length && isJsonSpace(data.charCodeAt(j))) j++;
    if (data[j] === ',') end = j + 1;
  }
  return data.slice(0, start) + data.slice(end);
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

export function passthroughBetaRecord(state: PassthroughState, ev: UpstreamEvent): string[] {
  let name = ev.event;
  let data = ev.data;
  if (ev.messageType !== undefined) {
    // Bedrock InvokeModelWithResponseStream: `chunk` frames carry base64 Anthropic events.
    if (ev.messageType === 'exception') {
      const error = eventStreamException(ev);
      state.summary.error = error;
      return [state.codec.errorRecord(fromUpstream(error))];
    }
    const frame: unknown = JSON.parse(ev.data);
    if (!isRecord(frame) || typeof frame.bytes !== 'string') return [];
    data = Buffer.from(frame.bytes, 'base64').toString('utf8');
    name = undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return [];
  }
  if (!isRecord(parsed)) return [];
  const type = typeof parsed.type === 'string' ? parsed.type : (name ?? 'unknown');
  observeBeta(state.summary, type, parsed);
  return [`event: ${name ?? type}\ndata: ${data}\n\n`];
}

function observeBeta(summary: StreamSummary, type: string, ev: Rec): void {
  const u = type === 'message_start' && isRecord(ev.message) ? ev.message.usage : ev.usage;
  if (isRecord(u)) {
    if (typeof u.input_tokens === 'number') summary.usage.input = u.input_tokens;
    if (typeof u.output_tokens === 'number') summary.usage.output = u.output_tokens;
    if (typeof u.cache_read_input_tokens === 'number') summary.usage.cacheRead = u.cache_read_input_tokens;
    if (typeof u.cache_creation_input_tokens === 'number') summary.usage.cacheWrite = u.cache_creation_input_tokens;
  }
  if (type === 'content_block_delta' && isRecord(ev.delta) && typeof ev.delta.text === 'string')
    summary.text += ev.delta.text;
  if (type === 'message_delta' && isRecord(ev.delta) && typeof ev.delta.stop_reason === 'string') {
    const r = ev.delta.stop_reason;
    summary.stopReason =
      r === 'tool_use' || r === 'max_tokens' || r === 'stop_sequence' || r === 'end_turn' ? r : 'end_turn';
  }
  if (type === 'error' && isRecord(ev.error)) summary.error = upstreamStreamError(ev.error);
}

function upstreamStreamError(e: Rec): UpstreamErrorInfo {
  const message = typeof e.message === 'string' ? e.message : 'upstream stream error';
  const type = typeof e.type === 'string' ? e.type : '';
  return {
    status: 502,
    kind: type.includes('overloaded') ? 'overloaded' : type.includes('rate') ? 'rate_limit' : 'server',
    message,
    retryable: true,
  };
}
