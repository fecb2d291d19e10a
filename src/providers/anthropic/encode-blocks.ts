// IR blocks, tools and tool choice -> Messages API JSON.
import type { Block, CacheControl, JsonObject, Message, TextBlock, Tool, ToolChoice } from '../../ir/types.ts';
import { isRecord, tryParseJson } from '../../util/json.ts';

export function cacheControl(c: CacheControl | undefined): JsonObject | undefined {
  if (!c) return undefined;
  const out: JsonObject = { type: c.type };
  if (c.ttl !== undefined) out.ttl = c.ttl;
  return out;
}

function withCache(block: JsonObject, c: CacheControl | undefined): JsonObject {
  const cc = cacheControl(c);
  if (cc) block.cache_control = cc;
  return block;
}

/** Anthropic accepts only `[a-zA-Z0-9_-]` in tool ids; ids minted by other upstreams may hold more. */
export function toolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function encodeText(b: TextBlock): JsonObject {
  return withCache({ type: 'text', text: b.text }, b.cacheControl);
}

/** Tool input must be an object here; a raw-string input (unparsable upstream arguments) is retried as JSON. */
function toolInput(input: unknown): JsonObject {
  if (isRecord(input)) return input as JsonObject;
  if (typeof input === 'string') {
    const parsed = tryParseJson(input);
    if (parsed.ok && isRecord(parsed.value)) return parsed.value as JsonObject;
  }
  return {};
}

export function encodeBlock(b: Block): JsonObject | undefined {
  switch (b.type) {
    case 'text':
      return encodeText(b);
    case 'image': {
      const source: JsonObject =
        b.source.kind === 'base64'
          ? { type: 'base64', media_type: b.source.mediaType, data: b.source.data }
          : { type: 'url', url: b.source.url };
      return withCache({ type: 'image', source }, b.cacheControl);
    }
    case 'tool_use':
      return withCache({ type: 'tool_use', id: toolId(b.id), name: b.name, input: toolInput(b.input) }, b.cacheControl);
    case 'tool_result': {
      const content = b.content.map((c) => encodeBlock(c)).filter((c): c is JsonObject => c !== undefined);
      const out: JsonObject = { type: 'tool_result', tool_use_id: toolId(b.toolUseId), content };
      if (b.isError) out.is_error = true;
      return withCache(out, b.cacheControl);
    }
    case 'thinking':
      // Unsigned thinking (from another upstream) would be rejected; signed blocks are echoed verbatim.
      return b.signature === undefined ? undefined : { type: 'thinking', thinking: b.thinking, signature: b.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
  }
}

/** Consecutive same-role turns are merged; in a user turn the tool results go first. */
export function encodeMessages(messages: Message[]): JsonObject[] {
  const turns: Array<{ role: Message['role']; content: JsonObject[] }> = [];
  for (const m of messages) {
    const blocks = m.content.map(encodeBlock).filter((b): b is JsonObject => b !== undefined);
    if (blocks.length === 0) continue;
    const last = turns[turns.length - 1];
    if (last && last.role === m.role) last.content.push(...blocks);
    else turns.push({ role: m.role, content: blocks });
  }
  return turns.map((t) => {
    const content =
      t.role === 'user'
        ? [...t.content.filter((b) => b.type === 'tool_result'), ...t.content.filter((b) => b.type !== 'tool_result')]
        : t.content;
    return { role: t.role, content };
  });
}

export function encodeTool(t: Tool): JsonObject {
  const out: JsonObject = { name: t.name };
  if (t.description !== undefined) out.description = t.description;
  out.input_schema = t.inputSchema;
  return withCache(out, t.cacheControl);
}

export function encodeToolChoice(
  choice: ToolChoice | undefined,
  parallel: boolean | undefined,
): JsonObject | undefined {
  if (choice?.type === 'none') return { type: 'none' };
  if (choice === undefined && parallel !== false) return undefined;
  const out: JsonObject =
    choice?.type === 'tool' ? { type: 'tool', name: choice.name } : { type: choice?.type ?? 'auto' };
  if (parallel === false) out.disable_parallel_tool_use = true;
  return out;
}
