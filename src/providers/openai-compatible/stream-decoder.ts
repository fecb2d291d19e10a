// Chat completion chunks -> IR stream events, as a state machine over an explicit state object.
// The stop event is held back until `[DONE]` (or the end of the stream) because the usage chunk
// arrives after the finish chunk when `include_usage` is on.
import type { StreamEvent } from '../../ir/types.ts';
import { asArray, asNumber, asRecord, asString, isRecord, tryParseJson } from '../../util/json.ts';
import { newToolCallId } from '../shared/ids.ts';
import type { StreamDecoder, UpstreamEvent } from '../types.ts';
import { decodeStreamError } from './decode-error.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { mapUsage } from './map-usage.ts';

interface ToolState {
  blockIndex: number;
  closed: boolean;
  sentArgs: boolean;
}

type OpenBlock = { kind: 'text' | 'thinking'; index: number } | { kind: 'tool'; index: number; tool: ToolState };

export interface OpenAIStreamState {
  started: boolean;
  /** A stop or an error was emitted: nothing else may follow. */
  done: boolean;
  id: string;
  model: string;
  nextIndex: number;
  open: OpenBlock | null;
  /** Keyed by the upstream `tool_calls[].index` (position of the call in the message). */
  tools: Map<number, ToolState>;
  finishReason: string | null;
}

export function newOpenAIStreamState(): OpenAIStreamState {
  return {
    started: false,
    done: false,
    id: '',
    model: '',
    nextIndex: 0,
    open: null,
    tools: new Map(),
    finishReason: null,
  };
}

export function openAIStreamStep(s: OpenAIStreamState, ev: UpstreamEvent): StreamEvent[] {
  if (s.done) return [];
  const data = ev.data.trim();
  if (data === '[DONE]') return finish(s);
  const parsed = tryParseJson(data);
  // Some hosts put `"error": null` on ordinary chunks; only a real value is an error.
  const inlineError = parsed.ok && isRecord(parsed.value) ? parsed.value.error : undefined;
  if (ev.event === 'error' || (inlineError !== undefined && inlineError !== null)) {
    s.done = true;
    return [{ type: 'error', error: decodeStreamError(parsed.ok ? parsed.value : {}, ev.data) }];
  }
  if (!parsed.ok || !isRecord(parsed.value)) return [];
  const chunk = parsed.value;
  const out: StreamEvent[] = [];
  const choices = asArray(chunk.choices);
  const usage = mapUsage(chunk.usage);
  // Azure opens with a `choices: []` chunk holding only prompt filter results and empty ids.
  if (!s.started && (choices.length > 0 || usage)) out.push(...start(s, asString(chunk.id), asString(chunk.model)));
  const choice = asRecord(choices.find((c) => (asNumber(asRecord(c).index) ?? 0) === 0));
  const delta = asRecord(choice.delta);
  const reasoning = asString(delta.reasoning_content) ?? asString(delta.reasoning);
  if (reasoning) out.push(...appendText(s, 'thinking', reasoning));
  const text = asString(delta.content) || asString(delta.refusal);
  if (text) out.push(...appendText(s, 'text', text));
  asArray(delta.tool_calls).forEach((tc, pos) => {
    out.push(...toolFragment(s, asRecord(tc), pos));
  });
  const finishReason = asString(choice.finish_reason);
  if (finishReason) {
    s.finishReason = finishReason;
    out.push(...closeOpen(s));
  }
  if (usage) out.push({ type: 'usage', usage });
  return out;
}

export function openAIStreamEnd(s: OpenAIStreamState): StreamEvent[] {
  return s.done ? [] : finish(s);
}

function start(s: OpenAIStreamState, id: string | undefined, model: string | undefined): StreamEvent[] {
  s.started = true;
  s.id = id ?? '';
  s.model = model ?? '';
  return [{ type: 'start', id: s.id, model: s.model }];
}

function appendText(s: OpenAIStreamState, kind: 'text' | 'thinking', text: string): StreamEvent[] {
  const out: StreamEvent[] = [];
  if (s.open?.kind !== kind) {
    out.push(...closeOpen(s));
    const index = s.nextIndex++;
    s.open = { kind, index };
    out.push({ type: 'block_start', index, block: { type: kind } });
  }
  const index = s.open?.index ?? 0;
  out.push(kind === 'text' ? { type: 'text_delta', index, text } : { type: 'thinking_delta', index, text });
  return out;
}

function toolFragment(s: OpenAIStreamState, tc: Record<string, unknown>, pos: number): StreamEvent[] {
  const out: StreamEvent[] = [];
  const key = asNumber(tc.index) ?? pos;
  const fn = asRecord(tc.function);
  let tool = s.tools.get(key);
  if (!tool) {
    out.push(...closeOpen(s));
    tool = { blockIndex: s.nextIndex++, closed: false, sentArgs: false };
    s.tools.set(key, tool);
    s.open = { kind: 'tool', index: tool.blockIndex, tool };
    const block = { type: 'tool_use' as const, id: asString(tc.id) || newToolCallId(), name: asString(fn.name) ?? '' };
    out.push({ type: 'block_start', index: tool.blockIndex, block });
  }
  const args = asString(fn.arguments);
  // A fragment for a call whose block was already closed (interleaved calls) cannot be placed: IR
  // blocks are never reopened. OpenAI sends calls one after another, so this is not expected.
  if (args && !tool.closed) {
    tool.sentArgs = true;
    out.push({ type: 'tool_args_delta', index: tool.blockIndex, partialJson: args });
  }
  return out;
}

function closeOpen(s: OpenAIStreamState): StreamEvent[] {
  const open = s.open;
  if (!open) return [];
  s.open = null;
  const out: StreamEvent[] = [];
  if (open.kind === 'tool') {
    open.tool.closed = true;
    // The concatenated fragments must form a JSON object even when the upstream sent none.
    if (!open.tool.sentArgs) out.push({ type: 'tool_args_delta', index: open.index, partialJson: '{}' });
  }
  out.push({ type: 'block_stop', index: open.index });
  return out;
}

function finish(s: OpenAIStreamState): StreamEvent[] {
  const out: StreamEvent[] = s.started ? [] : start(s, undefined, undefined);
  out.push(...closeOpen(s));
  s.done = true;
  const stop: StreamEvent = {
    type: 'stop',
    stopReason: mapFinishReason(s.finishReason, s.tools.size > 0),
    stopSequence: null,
  };
  if (s.finishReason !== null) stop.rawStopReason = s.finishReason;
  out.push(stop);
  return out;
}

export function newOpenAIStreamDecoder(): StreamDecoder {
  const state = newOpenAIStreamState();
  return {
    push: (ev) => openAIStreamStep(state, ev),
    end: () => openAIStreamEnd(state),
  };
}
