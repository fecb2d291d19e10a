// IR messages -> chat completions `messages`. Thinking and cache hints have no place on this wire.
import type { Block, ImageBlock, JsonObject, JsonValue, Message, TextBlock, ToolResultBlock } from '../../ir/types.ts';

export function encodeSystem(system: TextBlock[]): JsonObject[] {
  const texts = system.filter((b) => b.text !== '');
  if (texts.length === 0) return [];
  // Several system blocks stay separate parts so nothing is glued together.
  const content: JsonValue =
    texts.length === 1 ? texts[0].text : texts.map((b): JsonObject => ({ type: 'text', text: b.text }));
  return [{ role: 'system', content }];
}

export function encodeMessages(messages: Message[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push(...encodeUser(m.content));
    else {
      const a = encodeAssistant(m.content);
      if (a) out.push(a);
    }
  }
  return out;
}

function imageUrl(b: ImageBlock): string {
  return b.source.kind === 'url' ? b.source.url : `data:${b.source.mediaType};base64,${b.source.data}`;
}

function userPart(b: Block): JsonObject | undefined {
  if (b.type === 'text') return { type: 'text', text: b.text };
  if (b.type === 'image') return { type: 'image_url', image_url: { url: imageUrl(b) } };
  return undefined;
}

/** Tool replies come first (they answer the previous assistant turn), then the rest of the user turn. */
function encodeUser(content: Block[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const b of content) if (b.type === 'tool_result') out.push(encodeToolResult(b));
  const parts = content.map(userPart).filter((p): p is JsonObject => p !== undefined);
  if (parts.length === 0) return out;
  const onlyText = parts.length === 1 && parts[0].type === 'text';
  out.push({ role: 'user', content: onlyText ? (parts[0].text as string) : parts });
  return out;
}

/** Images in tool results cannot travel on this wire (SPEC: text-only cross-provider). */
function encodeToolResult(b: ToolResultBlock): JsonObject {
  const text = b.content
    .filter((c): c is TextBlock => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  return { role: 'tool', tool_call_id: b.toolUseId, content: text };
}

function encodeAssistant(content: Block[]): JsonObject | undefined {
  const texts: string[] = [];
  const calls: JsonObject[] = [];
  for (const b of content) {
    if (b.type === 'text') texts.push(b.text);
    else if (b.type === 'tool_use') {
      const args = typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {});
      calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: args } });
    }
  }
  if (texts.length === 0 && calls.length === 0) return undefined;
  const msg: JsonObject = { role: 'assistant', content: texts.length > 0 ? texts.join('\n') : null };
  if (calls.length > 0) msg.tool_calls = calls;
  return msg;
}
