// IR conversation -> Converse `messages`. Converse wants strictly alternating roles, bytes (never
// URLs) for images, and cannot take blank text blocks.
import type { Block, EncodeWarning, JsonObject, JsonValue, Message, ToolResultBlock } from '../../ir/types.ts';
import { toolInputObject } from '../shared/tool-input.ts';
import { dropped } from '../shared/warnings.ts';
import { imageFormat, supportsCachePoint, supportsToolResultStatus } from './models.ts';

const CACHE_POINT: JsonObject = { cachePoint: { type: 'default' } };

export interface EncodeContext {
  model: string;
  /** Where the encoders say what they left out (shared/warnings.ts). */
  warnings: EncodeWarning[];
}

function toolResult(block: ToolResultBlock, ctx: EncodeContext): JsonObject {
  // Text only across providers (SPEC); images in tool results are dropped.
  const content: JsonValue[] = block.content.flatMap((c) => (c.type === 'text' && c.text ? [{ text: c.text }] : []));
  const result: JsonObject = {
    toolUseId: block.toolUseId,
    // An empty text block is rejected as blank; an empty JSON object is the neutral "no output".
    content: content.length > 0 ? content : [{ json: {} }],
  };
  if (supportsToolResultStatus(ctx.model)) result.status = block.isError ? 'error' : 'success';
  return { toolResult: result };
}

function encodeBlock(block: Block, ctx: EncodeContext): JsonObject | undefined {
  switch (block.type) {
    case 'text':
      return block.text.trim() ? { text: block.text } : undefined;
    case 'image': {
      // Converse takes bytes or S3 only and the gateway does not fetch URLs: URL images are dropped.
      if (block.source.kind !== 'base64') {
        ctx.warnings.push(dropped('image_url'));
        return undefined;
      }
      const format = imageFormat(block.source.mediaType);
      if (!format) ctx.warnings.push(dropped('image'));
      return format ? { image: { format, source: { bytes: block.source.data } } } : undefined;
    }
    case 'tool_use':
      return { toolUse: { toolUseId: block.id, name: block.name, input: toolInputObject(block.input) } };
    case 'tool_result':
      return toolResult(block, ctx);
    case 'thinking': {
      if (!block.thinking) return undefined;
      const reasoningText: JsonObject = { text: block.thinking };
      if (block.signature) reasoningText.signature = block.signature;
      return { reasoningContent: { reasoningText } };
    }
    case 'redacted_thinking':
      return { reasoningContent: { redactedContent: block.data } };
  }
}

function encodeBlocks(blocks: Block[], ctx: EncodeContext): JsonObject[] {
  const out: JsonObject[] = [];
  const caching = supportsCachePoint(ctx.model);
  for (const block of blocks) {
    const encoded = encodeBlock(block, ctx);
    if (!encoded) continue;
    out.push(encoded);
    if (caching && 'cacheControl' in block && block.cacheControl) out.push(CACHE_POINT);
  }
  return out;
}

export function toConverseMessages(messages: Message[], ctx: EncodeContext): JsonObject[] {
  const out: Array<{ role: string; content: JsonObject[] }> = [];
  for (const message of messages) {
    // Tool results lead their user turn, in the order the calls were made.
    const blocks =
      message.role === 'user'
        ? [
            ...message.content.filter((b) => b.type === 'tool_result'),
            ...message.content.filter((b) => b.type !== 'tool_result'),
          ]
        : message.content;
    const content = encodeBlocks(blocks, ctx);
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === message.role) last.content.push(...content);
    else out.push({ role: message.role, content });
  }
  return out;
}

/** Tool names referenced by history, for the toolConfig Converse demands when history has tool blocks. */
export function historyToolNames(messages: Message[]): { names: string[]; hasToolBlocks: boolean } {
  const names = new Set<string>();
  let hasToolBlocks = false;
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'tool_use') names.add(b.name);
      if (b.type === 'tool_use' || b.type === 'tool_result') hasToolBlocks = true;
    }
  }
  return { names: [...names], hasToolBlocks };
}

export function systemBlocks(
  system: Array<{ text: string; cacheControl?: unknown }>,
  ctx: EncodeContext,
): JsonObject[] {
  const out: JsonObject[] = [];
  const caching = supportsCachePoint(ctx.model);
  for (const block of system) {
    if (!block.text.trim()) continue;
    out.push({ text: block.text });
    if (caching && block.cacheControl) out.push(CACHE_POINT);
  }
  return out;
}
