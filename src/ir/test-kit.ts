// Builders for IR requests, blocks and stream events, shared by the codec and vendor tests (tests only;
// product code never imports this). They spell the IR side of a case in one line so each test's
// literal wire side stands out; every builder returns exactly the object it names, nothing more.
import assert from 'node:assert/strict';
import type {
  Block,
  CacheControl,
  ChatRequest,
  ImageBlock,
  JsonValue,
  Message,
  StopReason,
  StreamEvent,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  UpstreamErrorInfo,
} from './types.ts';

/** An empty request for `model`: no system, messages, tools or params, not streamed. */
export function chatRequest(model: string, over: Partial<ChatRequest> = {}): ChatRequest {
  return { model, system: [], messages: [], tools: [], params: {}, stream: false, ...over };
}

export const text = (value: string, cacheControl?: CacheControl): TextBlock =>
  cacheControl ? { type: 'text', text: value, cacheControl } : { type: 'text', text: value };

export const imageBase64 = (data: string, mediaType = 'image/png'): ImageBlock => ({
  type: 'image',
  source: { kind: 'base64', mediaType, data },
});

export const imageUrl = (url: string): ImageBlock => ({ type: 'image', source: { kind: 'url', url } });

export const toolUse = (id: string, name: string, input: JsonValue): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

/** A tool result; `content` given as a string is one text block. */
export function toolResult(
  toolUseId: string,
  content: string | ToolResultBlock['content'],
  isError?: boolean,
): ToolResultBlock {
  const blocks = typeof content === 'string' ? [text(content)] : content;
  return isError === undefined
    ? { type: 'tool_result', toolUseId, content: blocks }
    : { type: 'tool_result', toolUseId, content: blocks, isError };
}

export const thinking = (value: string, signature?: string): ThinkingBlock =>
  signature === undefined ? { type: 'thinking', thinking: value } : { type: 'thinking', thinking: value, signature };

export const user = (...content: Block[]): Message => ({ role: 'user', content });
export const assistant = (...content: Block[]): Message => ({ role: 'assistant', content });

/** A tool call answered by an image only: every wire that cannot carry it must say it dropped it. */
export const IMAGE_TOOL_RESULT: readonly Message[] = [
  assistant(toolUse('t1', 'shot', {})),
  user(toolResult('t1', [imageBase64('AAAA')])),
];

/** `block_start`, one `text_delta` per piece, `block_stop`. */
export function textBlockEvents(index: number, ...pieces: string[]): StreamEvent[] {
  return [
    { type: 'block_start', index, block: { type: 'text' } },
    ...pieces.map((t): StreamEvent => ({ type: 'text_delta', index, text: t })),
    { type: 'block_stop', index },
  ];
}

/** `block_start`, one `thinking_delta` per piece, the signature when given, `block_stop`. */
export function thinkingBlockEvents(index: number, pieces: string[], signature?: string): StreamEvent[] {
  return [
    { type: 'block_start', index, block: { type: 'thinking' } },
    ...pieces.map((t): StreamEvent => ({ type: 'thinking_delta', index, text: t })),
    ...(signature === undefined ? [] : [{ type: 'signature_delta', index, signature } as const]),
    { type: 'block_stop', index },
  ];
}

/** `block_start` of a tool call, one `tool_args_delta` per fragment, `block_stop`. */
export function toolBlockEvents(index: number, id: string, name: string, ...fragments: string[]): StreamEvent[] {
  return [
    { type: 'block_start', index, block: { type: 'tool_use', id, name } },
    ...fragments.map((partialJson): StreamEvent => ({ type: 'tool_args_delta', index, partialJson })),
    { type: 'block_stop', index },
  ];
}

/** The `stop` event as decoders emit it, the raw reason defaulting to the IR one. */
export const stopEvent = (
  stopReason: StopReason,
  rawStopReason: string = stopReason,
  stopSequence: string | null = null,
): StreamEvent => ({ type: 'stop', stopReason, rawStopReason, stopSequence });

/** Asserts the stream ended in an error, carried no stop, and the error has exactly the given fields' values. */
export function assertErrorEnd(events: readonly StreamEvent[], expected: Partial<UpstreamErrorInfo>): void {
  const error = endingError(events);
  const keys = Object.keys(expected) as Array<keyof UpstreamErrorInfo>;
  assert.deepEqual(Object.fromEntries(keys.map((k) => [k, error[k]])), expected);
}

/** Asserts the stream ended in an error and carried no stop, and returns that error. */
function endingError(events: readonly StreamEvent[]): UpstreamErrorInfo {
  const last = events[events.length - 1];
  if (last?.type !== 'error') assert.fail(`expected a final error event, got ${JSON.stringify(last)}`);
  assert.equal(events.filter((e) => e.type === 'stop').length, 0, 'an errored stream carries no stop');
  return last.error;
}
