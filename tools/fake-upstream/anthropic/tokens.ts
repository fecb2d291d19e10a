// Deterministic input-token accounting: the prompt is cut into segments (tools, system blocks, message
// blocks, in the order the API caches them) so totals, cache prefixes and count_tokens always agree.
import { createHash } from 'node:crypto';
import { countTokens } from '../script.ts';
import type { InBlock, MessagesRequest } from './types.ts';
import { isObj, isStr } from './util.ts';

/** Images and binary documents count as a fixed amount, like a small image would. */
const MEDIA_TOKENS = 85;

export interface Segment {
  /** Identity of the segment for prompt-cache hashing (the block without its cache_control). */
  key: string;
  tokens: number;
  /** A cache_control breakpoint sits on this segment. */
  breakpoint: boolean;
  ttl1h: boolean;
}

function innerText(content: unknown): string {
  if (isStr(content)) return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (isObj(c) && isStr(c.text) ? c.text : ''))
    .filter((s) => s.length > 0)
    .join('\n');
}

/** Plain text of a block as the fake counts it. */
export function blockText(b: InBlock): string {
  switch (b.type) {
    case 'text':
      return String(b.text);
    case 'thinking':
      return String(b.thinking);
    case 'tool_use':
      return `${String(b.name)} ${JSON.stringify(b.input)}`;
    case 'tool_result':
      return innerText(b.content);
    default:
      return '';
  }
}

function blockTokens(b: InBlock): number {
  if (b.type === 'image' || b.type === 'document') return MEDIA_TOKENS;
  return countTokens(blockText(b));
}

function segment(value: unknown, tokens: number, cacheControl: unknown): Segment {
  const { cache_control: _drop, ...rest } = isObj(value) ? value : { value };
  return {
    key: JSON.stringify(rest),
    tokens,
    breakpoint: isObj(cacheControl),
    ttl1h: isObj(cacheControl) && cacheControl.ttl === '1h',
  };
}

export function segmentsOf(req: MessagesRequest): Segment[] {
  const out: Segment[] = [];
  for (const t of req.tools) out.push(segment(t.raw, countTokens(JSON.stringify(t.raw)), t.raw.cache_control));
  for (const b of req.system) out.push(segment(b, blockTokens(b), b.cache_control));
  for (const m of req.messages) {
    for (const b of m.content) out.push(segment({ role: m.role, ...b }, blockTokens(b), b.cache_control));
  }
  return out;
}

export function totalTokens(segments: Segment[]): number {
  let n = 0;
  for (const s of segments) n += s.tokens;
  return n;
}

export interface CacheResult {
  /** Tokens not served from or written to the cache. */
  input: number;
  write: number;
  read: number;
  write1h: number;
}

/**
 * The cacheable prefix runs up to the last breakpoint. A prefix seen before is a read, a new one is a
 * write (and remembered in `seen`, which lives in the fake's per-vendor store).
 */
export function applyCache(segments: Segment[], seen: Set<string>, namespace: string): CacheResult {
  const total = totalTokens(segments);
  let last = -1;
  for (let i = 0; i < segments.length; i++) if (segments[i].breakpoint) last = i;
  if (last === -1) return { input: total, write: 0, read: 0, write1h: 0 };
  const h = createHash('sha256').update(namespace);
  let prefix = 0;
  for (let i = 0; i <= last; i++) {
    h.update('\u0000').update(segments[i].key);
    prefix += segments[i].tokens;
  }
  const digest = h.digest('hex');
  if (seen.has(digest)) return { input: total - prefix, write: 0, read: prefix, write1h: 0 };
  seen.add(digest);
  const oneHour = segments.slice(0, last + 1).some((s) => s.ttl1h);
  return { input: total - prefix, write: prefix, read: 0, write1h: oneHour ? prefix : 0 };
}
