// Messages-API content blocks -> IR blocks. Every block type the IR can hold is kept verbatim (thinking
// signatures, cache_control) because a native upstream needs them back unchanged.

import { invalid } from '../../../errors/gateway-error.ts';
import type {
  Block,
  CacheControl,
  ImageBlock,
  JsonValue,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../../../ir/types.ts';
import { describe, expectArray, expectObject, expectString, optBoolean } from '../../shared/json.ts';

export function cacheControl(value: unknown, path: string): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const cc = expectObject(value, path);
  if (cc.type !== 'ephemeral') invalid(`${path}.type`, `expected "ephemeral", got ${JSON.stringify(cc.type)}`);
  const out: CacheControl = { type: 'ephemeral' };
  if (cc.ttl !== undefined) out.ttl = expectString(cc.ttl, `${path}.ttl`);
  return out;
}

function withCache<T extends { cacheControl?: CacheControl }>(block: T, raw: Record<string, unknown>, path: string): T {
  const cc = cacheControl(raw.cache_control, `${path}.cache_control`);
  if (cc) block.cacheControl = cc;
  return block;
}

export function textBlock(raw: Record<string, unknown>, path: string): TextBlock {
  return withCache<TextBlock>({ type: 'text', text: expectString(raw.text, `${path}.text`) }, raw, path);
}

function imageBlock(raw: Record<string, unknown>, path: string): ImageBlock {
  const source = expectObject(raw.source, `${path}.source`);
  const sp = `${path}.source`;
  let block: ImageBlock;
  if (source.type === 'base64') {
    const mediaType = expectString(source.media_type, `${sp}.media_type`);
    block = { type: 'image', source: { kind: 'base64', mediaType, data: expectString(source.data, `${sp}.data`) } };
  } else if (source.type === 'url') {
    block = { type: 'image', source: { kind: 'url', url: expectString(source.url, `${sp}.url`) } };
  } else {
    return invalid(`${sp}.type`, `expected "base64" or "url", got ${JSON.stringify(source.type)}`);
  }
  return withCache(block, raw, path);
}

function toolResultContent(value: unknown, path: string): Array<TextBlock | ImageBlock> {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  return expectArray(value, path).map((item, i) => {
    const p = `${path}[${i}]`;
    const raw = expectObject(item, p);
    const type = expectString(raw.type, `${p}.type`);
    if (type === 'text') return textBlock(raw, p);
    if (type === 'image') return imageBlock(raw, p);
    return invalid(`${p}.type`, `tool_result content accepts text and image blocks, got "${type}"`);
  });
}

function block(item: unknown, path: string): Block {
  const raw = expectObject(item, path);
  const type = expectString(raw.type, `${path}.type`);
  switch (type) {
    case 'text':
      return textBlock(raw, path);
    case 'image':
      return imageBlock(raw, path);
    case 'tool_use':
      return withCache<ToolUseBlock>(
        {
          type: 'tool_use',
          id: expectString(raw.id, `${path}.id`),
          name: expectString(raw.name, `${path}.name`),
          input: expectObject(raw.input, `${path}.input`) as JsonValue,
        },
        raw,
        path,
      );
    case 'tool_result': {
      const isError = optBoolean(raw.is_error, `${path}.is_error`);
      return withCache<ToolResultBlock>(
        {
          type: 'tool_result',
          toolUseId: expectString(raw.tool_use_id, `${path}.tool_use_id`),
          content: toolResultContent(raw.content, `${path}.content`),
          ...(isError === undefined ? {} : { isError }),
        },
        raw,
        path,
      );
    }
    case 'thinking': {
      const signature = raw.signature === undefined ? undefined : expectString(raw.signature, `${path}.signature`);
      return {
        type: 'thinking',
        thinking: expectString(raw.thinking, `${path}.thinking`),
        ...(signature === undefined ? {} : { signature }),
      };
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: expectString(raw.data, `${path}.data`) };
    case 'document':
      return invalid(`${path}.type`, 'document blocks are not supported by this gateway yet', 'unsupported_content');
    default:
      return invalid(`${path}.type`, `unknown block type "${type}"`);
  }
}

export function decodeBetaContent(value: unknown, path: string): Block[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (!Array.isArray(value)) invalid(path, `expected a string or an array of content blocks, got ${describe(value)}`);
  return value.map((item, i) => block(item, `${path}[${i}]`));
}

export function decodeBetaSystem(value: unknown): TextBlock[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  return expectArray(value, 'system').map((item, i) => {
    const p = `system[${i}]`;
    const raw = expectObject(item, p);
    if (raw.type !== 'text') invalid(`${p}.type`, `system accepts only text blocks, got ${JSON.stringify(raw.type)}`);
    return textBlock(raw, p);
  });
}
