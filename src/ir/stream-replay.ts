// A complete answer -> the IR events a streaming upstream would have produced for it, so a stored answer
// (semantic cache) can be replayed through either family's stream encoder as if it were live.
import type { Block, ChatResponse, StreamEvent, Usage } from './types.ts';

/** Delta size in UTF-16 units: small enough that a replay is visibly incremental, large enough to stay cheap. */
const CHUNK = 64;

export function responseEvents(res: ChatResponse): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start', id: res.id, model: res.model, usage: startUsage(res.usage) }];
  let index = 0;
  for (const block of res.content) {
    if (pushBlock(events, index, block)) index++;
  }
  events.push({ type: 'usage', usage: { ...res.usage } });
  const stop: StreamEvent = { type: 'stop', stopReason: res.stopReason };
  if (res.rawStopReason !== undefined) stop.rawStopReason = res.rawStopReason;
  if (res.stopSequence !== undefined) stop.stopSequence = res.stopSequence;
  events.push(stop);
  return events;
}

/** Real upstreams announce prompt-side counts up front and output only at the end. */
function startUsage(u: Usage): Partial<Usage> {
  const out: Partial<Usage> = { input: u.input };
  if (u.cacheRead !== undefined) out.cacheRead = u.cacheRead;
  if (u.cacheWrite !== undefined) out.cacheWrite = u.cacheWrite;
  return out;
}

/** Appends the block's events; false when the block has no stream form and took no index. */
function pushBlock(events: StreamEvent[], index: number, block: Block): boolean {
  switch (block.type) {
    case 'text':
      events.push({ type: 'block_start', index, block: { type: 'text' } });
      for (const text of splitText(block.text)) events.push({ type: 'text_delta', index, text });
      break;
    case 'thinking':
      events.push({ type: 'block_start', index, block: { type: 'thinking' } });
      for (const text of splitText(block.thinking)) events.push({ type: 'thinking_delta', index, text });
      if (block.signature !== undefined) {
        events.push({ type: 'signature_delta', index, signature: block.signature });
      }
      break;
    case 'redacted_thinking':
      events.push({ type: 'block_start', index, block: { type: 'redacted_thinking', data: block.data } });
      break;
    case 'tool_use':
      events.push({ type: 'block_start', index, block: { type: 'tool_use', id: block.id, name: block.name } });
      events.push({ type: 'tool_args_delta', index, partialJson: JSON.stringify(block.input) });
      break;
    default:
      // Images and tool results belong to requests; an answer never carries them.
      return false;
  }
  events.push({ type: 'block_stop', index });
  return true;
}

/** Splits on UTF-16 unit boundaries, never between the halves of a surrogate pair (a lone half is not text). */
export function splitText(text: string, size = CHUNK): string[] {
  const out: string[] = [];
  let from = 0;
  while (from < text.length) {
    let to = Math.min(from + size, text.length);
    // Back off one unit, or take one more when backing off would leave nothing to send.
    if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to += to - 1 > from ? -1 : 1;
    out.push(text.slice(from, to));
    from = to;
  }
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
