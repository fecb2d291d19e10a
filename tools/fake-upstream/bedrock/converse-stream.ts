// Pure split of an answer into ConverseStream events (event type + payload), in Bedrock's order:
// messageStart, blocks (tool blocks open with contentBlockStart), messageStop, then metadata.
import type { MessageOut, OutBlock } from '../anthropic/types.ts';
import { chunkText } from '../script.ts';
import { converseUsage, toolUseId } from './converse-map.ts';

export interface ConverseEvent {
  type: string;
  payload: Record<string, unknown>;
}

/** Bedrock pads event payloads with a throwaway `p` field; clients must ignore it. */
const PAD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ';

function blockDeltas(b: OutBlock, pieces: number): Array<Record<string, unknown>> {
  if (b.type === 'text') return chunkText(b.text, pieces).map((text) => ({ text }));
  if (b.type === 'thinking')
    return [
      ...chunkText(b.thinking, pieces).map((text) => ({ reasoningContent: { text } })),
      { reasoningContent: { signature: b.signature } },
    ];
  return chunkText(JSON.stringify(b.input), 3).map((input) => ({ toolUse: { input } }));
}

export function converseEvents(msg: MessageOut, pieces: number, cached: boolean, latencyMs: number): ConverseEvent[] {
  const events: ConverseEvent[] = [{ type: 'messageStart', payload: { role: 'assistant', p: PAD.slice(0, 8) } }];
  msg.content.forEach((b, contentBlockIndex) => {
    if (b.type === 'tool_use')
      events.push({
        type: 'contentBlockStart',
        payload: {
          contentBlockIndex,
          start: { toolUse: { toolUseId: toolUseId(b.id), name: b.name } },
          p: PAD.slice(0, 5),
        },
      });
    for (const delta of blockDeltas(b, pieces))
      events.push({ type: 'contentBlockDelta', payload: { contentBlockIndex, delta, p: PAD.slice(0, 12) } });
    events.push({ type: 'contentBlockStop', payload: { contentBlockIndex, p: PAD.slice(0, 3) } });
  });
  events.push({ type: 'messageStop', payload: { stopReason: msg.stop_reason, p: PAD.slice(0, 6) } });
  events.push({
    type: 'metadata',
    payload: {
      usage: { ...converseUsage(msg, cached), serverToolUsage: {} },
      metrics: { latencyMs },
      p: PAD.slice(0, 4),
    },
  });
  return events;
}
