// Pure translation of a finished Message into the exact Messages SSE event sequence.
import { chunkText } from '../script.ts';
import type { MessageOut, OutBlock } from './types.ts';

export interface StreamEvent {
  type: string;
  [k: string]: unknown;
}

function startBlock(b: OutBlock): Record<string, unknown> {
  if (b.type === 'text') return { type: 'text', text: '' };
  if (b.type === 'thinking') return { type: 'thinking', thinking: '', signature: '' };
  return { type: 'tool_use', id: b.id, name: b.name, input: {}, caller: b.caller };
}

function deltas(b: OutBlock, pieces: number): Array<Record<string, unknown>> {
  if (b.type === 'text') return chunkText(b.text, pieces).map((text) => ({ type: 'text_delta', text }));
  if (b.type === 'thinking')
    return [
      ...chunkText(b.thinking, pieces).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: b.signature },
    ];
  // The API opens every tool input with an empty fragment; clients must cope with it.
  const json = JSON.stringify(b.input);
  return ['', ...chunkText(json, 3)].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
}

/** `pieces`: how many deltas each text/thinking block is cut into (`long` models ask for many). */
export function messageEvents(msg: MessageOut, pieces: number): StreamEvent[] {
  const u = msg.usage;
  const events: StreamEvent[] = [
    {
      type: 'message_start',
      message: {
        ...msg,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: { ...u, output_tokens: Math.min(1, u.output_tokens) },
      },
    },
  ];
  msg.content.forEach((b, index) => {
    events.push({ type: 'content_block_start', index, content_block: startBlock(b) });
    if (index === 0) events.push({ type: 'ping' });
    for (const delta of deltas(b, pieces)) events.push({ type: 'content_block_delta', index, delta });
    events.push({ type: 'content_block_stop', index });
  });
  if (msg.content.length === 0) events.push({ type: 'ping' });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: msg.stop_reason, stop_sequence: msg.stop_sequence, stop_details: null },
    usage: {
      input_tokens: u.input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens,
      output_tokens: u.output_tokens,
    },
  });
  events.push({ type: 'message_stop' });
  return events;
}

/** Where a `midstream-error` stream breaks: after the first content delta, before the block ends. */
export function breakPoint(events: StreamEvent[]): number {
  const firstDelta = events.findIndex((e) => e.type === 'content_block_delta');
  return firstDelta === -1 ? 1 : firstDelta + 1;
}
