// The o200k_base encoding (GPT-4o / 4.1 / o-series / gpt-5), loaded on first use, plus the
// bounded-cost counting used on the request path.
import { createRequire } from 'node:module';
import type * as O200k from 'gpt-tokenizer/encoding/o200k_base';
import { LRUCache } from 'lru-cache';

type Encoding = typeof O200k;

// Special-token text typed by users (`<|endoftext|>`) counts as plain text instead of throwing.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Below this, counting is cheaper than a cache probe on a long string's hash. */
const CACHE_MIN_CHARS = 512;
/** Past this, the hot path counts a leading sample and scales it (BPE is ~0.1 ms per 2 KB). */
const SAMPLE_ABOVE_CHARS = 64 * 1024;
const SAMPLE_CHARS = 16 * 1024;

let encoding: Encoding | undefined;

// Loading the ranks takes ~200 ms, so it happens on first use, not at import. The CommonJS build
// is required synchronously so that every counting function stays synchronous.
function getEncoding(): Encoding {
  if (!encoding) {
    const require = createRequire(import.meta.url);
    encoding = require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding;
  }
  return encoding;
}

/** Loads the encoding ahead of the first request (call once the server listens). */
export function warmTokenizer(): void {
  getEncoding();
}

/** Exact o200k_base token count of `text`. */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return getEncoding().countTokens(text, PLAIN_TEXT);
}

// System prompts, tool schemas and earlier turns are resent on every call of a conversation, so
// their counts are kept, bounded by total characters held. Made on first use: lru-cache allocates
// its arrays for all `max` entries at once (~0.6 MB), which a gateway that never counts would hold.
let counts: LRUCache<string, number> | undefined;

function countCache(): LRUCache<string, number> {
  counts ??= new LRUCache({ max: 20_000, maxSize: 16 * 1024 * 1024, sizeCalculation: (_count, text) => text.length });
  return counts;
}

function sampledCount(text: string): number {
  let cut = SAMPLE_CHARS;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return Math.ceil((countTextTokens(text.slice(0, cut)) * text.length) / cut);
}

/**
 * Token count for the request path: exact up to 64 KB of text (cached for long repeated texts),
 * scaled from a 16 KB sample beyond that so one huge prompt cannot stall the event loop.
 */
export function estimateTextTokens(text: string): number {
  if (text.length < CACHE_MIN_CHARS) return countTextTokens(text);
  const cache = countCache();
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const n = text.length > SAMPLE_ABOVE_CHARS ? sampledCount(text) : countTextTokens(text);
  cache.set(text, n);
  return n;
}
