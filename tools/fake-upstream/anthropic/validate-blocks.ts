// Per-block validation of Messages content, mirroring the checks the real API makes on each block.
import { verifyThinking } from './thinking.ts';
import type { InBlock } from './types.ts';
import { isObj, isStr, type Json } from './util.ts';

const USER_TYPES = new Set(['text', 'image', 'document', 'search_result', 'tool_result']);
const ASSISTANT_TYPES = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
]);
const ALL_TYPES = new Set([...USER_TYPES, ...ASSISTANT_TYPES]);
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/** Returns an error message, or undefined when the cache_control value is acceptable. */
export function checkCacheControl(v: unknown, at: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v) || v.type !== 'ephemeral') return `${at}.cache_control.type: Input should be 'ephemeral'`;
  if (v.ttl !== undefined && v.ttl !== '5m' && v.ttl !== '1h')
    return `${at}.cache_control.ttl: Input should be '5m' or '1h'`;
  return undefined;
}

function checkImage(b: Json, at: string): string | undefined {
  const src = b.source;
  if (!isObj(src)) return `${at}.source: Field required`;
  if (src.type === 'base64') {
    if (!isStr(src.media_type) || !IMAGE_TYPES.has(src.media_type))
      return `${at}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
    if (!isStr(src.data) || src.data.length === 0) return `${at}.source.data: Field required`;
    return undefined;
  }
  if (src.type === 'url') return isStr(src.url) ? undefined : `${at}.source.url: Field required`;
  if (src.type === 'file') return isStr(src.file_id) ? undefined : `${at}.source.file_id: Field required`;
  return `${at}.source.type: Input should be 'base64', 'url' or 'file'`;
}

function checkToolResultContent(c: unknown, at: string): string | undefined {
  if (c === undefined || isStr(c)) return undefined;
  if (!Array.isArray(c)) return `${at}.content: Input should be a valid string or list`;
  for (let k = 0; k < c.length; k++) {
    const inner = c[k];
    if (!isObj(inner) || !isStr(inner.type)) return `${at}.content.${k}.type: Field required`;
    if (!['text', 'image', 'document', 'search_result'].includes(inner.type))
      return `${at}.content.${k}: block type '${inner.type}' is not allowed inside tool_result`;
    if (inner.type === 'text' && (!isStr(inner.text) || inner.text.length === 0))
      return `${at}.content.${k}.text: text content blocks must be non-empty`;
    if (inner.type === 'image') {
      const e = checkImage(inner, `${at}.content.${k}`);
      if (e) return e;
    }
  }
  return undefined;
}

/** Validates one block of `messages[i].content`; `role` decides which block types are allowed. */
export function checkBlock(raw: unknown, role: 'user' | 'assistant', at: string): string | undefined {
  if (!isObj(raw) || !isStr(raw.type)) return `${at}.type: Field required`;
  const b = raw as InBlock;
  if (!ALL_TYPES.has(b.type)) return `${at}.type: unknown content block type '${b.type}'`;
  const allowed = role === 'user' ? USER_TYPES : ASSISTANT_TYPES;
  if (!allowed.has(b.type)) return `${at}: '${b.type}' blocks are not allowed in '${role}' messages`;
  const cc = checkCacheControl(b.cache_control, at);
  if (cc) return cc;
  switch (b.type) {
    case 'text':
      if (!isStr(b.text)) return `${at}.text: Field required`;
      if (b.text.length === 0) return `${at}.text: text content blocks must be non-empty`;
      return undefined;
    case 'image':
      return checkImage(b, at);
    case 'document':
      return isObj(b.source) ? undefined : `${at}.source: Field required`;
    case 'tool_use':
      if (!isStr(b.id) || !TOOL_ID.test(b.id)) return `${at}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (!isStr(b.name) || b.name.length === 0) return `${at}.name: Field required`;
      if (!isObj(b.input)) return `${at}.input: Input should be a valid dictionary`;
      return undefined;
    case 'tool_result':
      if (!isStr(b.tool_use_id)) return `${at}.tool_use_id: Field required`;
      if (b.is_error !== undefined && typeof b.is_error !== 'boolean')
        return `${at}.is_error: Input should be a valid boolean`;
      return checkToolResultContent(b.content, at);
    case 'thinking':
      if (!isStr(b.thinking)) return `${at}.thinking: Field required`;
      if (!isStr(b.signature)) return `${at}.signature: Field required`;
      if (!verifyThinking(b.thinking, b.signature)) return `${at}: Invalid \`signature\` in \`thinking\` block`;
      return undefined;
    case 'redacted_thinking':
      return isStr(b.data) ? undefined : `${at}.data: Field required`;
    default:
      return undefined;
  }
}
