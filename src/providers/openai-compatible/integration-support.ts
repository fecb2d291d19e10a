// Drives an adapter end to end through the real executor (src/providers/http.ts); tests only.
import type { ChatRequest, ChatResponse, StreamEvent, UpstreamErrorInfo } from '../../ir/types.ts';
import { sendUpstream, upstreamEvents } from '../http.ts';
import type { ChatAdapter, Target } from '../types.ts';

export type ChatOutcome = { ok: true; response: ChatResponse } | { ok: false; error: UpstreamErrorInfo };

export async function runChat(adapter: ChatAdapter, req: ChatRequest, target: Target): Promise<ChatOutcome> {
  const res = await sendUpstream(await adapter.chatRequest({ ...req, stream: false }, target));
  const text = await res.body.text();
  if (res.status >= 400) return { ok: false, error: adapter.decodeError(res.status, text, res.headers) };
  return { ok: true, response: adapter.decodeChatResponse(JSON.parse(text), target) };
}

export async function runStream(adapter: ChatAdapter, req: ChatRequest, target: Target): Promise<StreamEvent[]> {
  const res = await sendUpstream(await adapter.chatRequest({ ...req, stream: true }, target));
  if (res.status >= 400) {
    const error = adapter.decodeError(res.status, await res.body.text(), res.headers);
    return [{ type: 'error', error }];
  }
  const decoder = adapter.newStreamDecoder(target);
  const out: StreamEvent[] = [];
  for await (const ev of upstreamEvents(res.body, adapter.streamFraming)) out.push(...decoder.push(ev));
  out.push(...decoder.end());
  return out;
}

/** Concatenated text deltas and tool arguments, per block index. */
export function collect(events: StreamEvent[]): { text: string; args: string[] } {
  let text = '';
  const args: string[] = [];
  for (const e of events) {
    if (e.type === 'text_delta') text += e.text;
    if (e.type === 'block_start' && e.block.type === 'tool_use') args[e.index] = '';
    if (e.type === 'tool_args_delta') args[e.index] = (args[e.index] ?? '') + e.partialJson;
  }
  return { text, args: args.filter((a) => a !== undefined) };
}
