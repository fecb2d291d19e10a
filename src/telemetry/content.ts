// Message content on the server span, opt-in (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true),
// in the GenAI conventions' shape: `gen_ai.system_instructions`, `gen_ai.input.messages` and
// `gen_ai.output.messages`, each a JSON array of messages made of typed parts. Read at the end of
// the call from the request IR as the call sent it and the answer as the record keeps it, so text a
// guardrail masked there is captured masked.
import type { Block, ChatResponse, TextBlock } from '../ir/types.ts';
import type { CallRecord, ProxyCall } from '../pipeline/types.ts';
import type { AttrSink } from './spans.ts';

/** Characters of JSON per attribute, at most: older messages go first, then long parts are cut. */
export const CONTENT_CAP = 16 * 1024;
/** Characters of one text part, at most, before the whole is measured against CONTENT_CAP. */
const PART_CAP = 4 * 1024;

type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string }
  | { type: 'uri'; modality: 'image'; uri: string }
  | { type: 'blob'; modality: 'image'; mime_type: string };

interface OtelMessage {
  role: string;
  parts: Part[];
  finish_reason?: string;
}

function cut(text: string): string {
  return text.length <= PART_CAP ? text : `${text.slice(0, PART_CAP)}…[truncated: ${text.length} characters]`;
}

function textOf(blocks: readonly TextBlock[]): string {
  return blocks.map((b) => b.text).join('\n');
}

function partOf(b: Block): Part | null {
  switch (b.type) {
    case 'text':
      return { type: 'text', content: cut(b.text) };
    case 'thinking':
      return { type: 'reasoning', content: cut(b.thinking) };
    case 'tool_use':
      return { type: 'tool_call', id: b.id, name: b.name, arguments: b.input };
    case 'tool_result':
      return {
        type: 'tool_call_response',
        id: b.toolUseId,
        response: cut(textOf(b.content.filter((c): c is TextBlock => c.type === 'text'))),
      };
    case 'image':
      // An inline image's bytes are never captured; its media type says what it was.
      return b.source.kind === 'url'
        ? { type: 'uri', modality: 'image', uri: b.source.url }
        : { type: 'blob', modality: 'image', mime_type: b.source.mediaType };
    default:
      return null;
  }
}

function partsOf(blocks: readonly Block[]): Part[] {
  const out: Part[] = [];
  for (const b of blocks) {
    const p = partOf(b);
    if (p !== null) out.push(p);
  }
  return out;
}

/** The messages as JSON within CONTENT_CAP: the oldest are dropped first, then the last one's parts. */
export function cappedJson(messages: OtelMessage[]): string {
  let list = messages;
  let json = JSON.stringify(list);
  while (json.length > CONTENT_CAP && list.length > 1) {
    list = list.slice(1);
    json = JSON.stringify(list);
  }
  while (json.length > CONTENT_CAP && list.length === 1 && list[0].parts.length > 1) {
    list = [{ ...list[0], parts: list[0].parts.slice(0, -1) }];
    json = JSON.stringify(list);
  }
  if (json.length <= CONTENT_CAP) return json;
  // One part still too long (a large tool call's arguments): say what it was, without it.
  const only = list[0];
  return JSON.stringify([{ ...only, parts: [{ type: 'text', content: `…[truncated: ${json.length} characters]` }] }]);
}

/** System instructions are a list of parts, not messages: the last parts go first. */
function cappedParts(parts: Part[]): string {
  let list = parts;
  let json = JSON.stringify(list);
  while (json.length > CONTENT_CAP && list.length > 1) {
    list = list.slice(0, -1);
    json = JSON.stringify(list);
  }
  return json.length <= CONTENT_CAP
    ? json
    : JSON.stringify([{ type: 'text', content: `…[truncated: ${json.length} characters]` }]);
}

/** The answer's text for a stream whose answer was not kept whole (the record's stream summary). */
function streamedText(body: unknown): { text: string; stop: string | undefined } | null {
  const b = body as { streamed?: unknown; text?: unknown; stop_reason?: unknown } | null;
  if (b?.streamed !== true || typeof b.text !== 'string') return null;
  return { text: b.text, stop: typeof b.stop_reason === 'string' ? b.stop_reason : undefined };
}

function outputMessages(answer: ChatResponse | null, responseBody: unknown): OtelMessage[] | null {
  if (answer !== null) return [{ role: 'assistant', parts: partsOf(answer.content), finish_reason: answer.stopReason }];
  const s = streamedText(responseBody);
  if (s === null) return null;
  const m: OtelMessage = { role: 'assistant', parts: [{ type: 'text', content: cut(s.text) }] };
  if (s.stop !== undefined) m.finish_reason = s.stop;
  return [m];
}

export function contentAttributes(call: ProxyCall, record: CallRecord | undefined, sink: AttrSink): void {
  const ir = call.chat?.ir;
  if (ir === undefined) return;
  if (ir.system.length > 0) sink.set('gen_ai.system_instructions', cappedParts(partsOf(ir.system)));
  sink.set('gen_ai.input.messages', cappedJson(ir.messages.map((m) => ({ role: m.role, parts: partsOf(m.content) }))));
  if (record === undefined || record.status >= 400) return;
  const out = outputMessages(record.answer, record.responseBody);
  if (out !== null) sink.set('gen_ai.output.messages', cappedJson(out));
}
