// Local prompt-size estimates with the o200k_base encoding. Other vendors' tokenizers differ by a
// few percent; these figures feed cost_optimized routing, budgets and the count_tokens fallback,
// where an offline estimate beats a network round trip.
import type { Block, ChatRequest } from '../ir/types.ts';
import { estimateTextTokens } from './encoding.ts';

export { countTextTokens, estimateTextTokens, warmTokenizer } from './encoding.ts';

/** Flat figure per image: what OpenAI bills a low-detail image, a fair middle for other vendors. */
export const IMAGE_TOKENS = 85;
/** Role markers and separators that wrap each message in every chat template. */
export const PER_MESSAGE_TOKENS = 4;
/** Reply priming plus the system section's own wrapper. */
export const PER_REQUEST_TOKENS = 3;

/** Counts what `text` says each text costs, the same way for both estimates. */
function blockTokens(block: Block, text: (s: string) => number): number {
  switch (block.type) {
    case 'text':
      return text(block.text);
    case 'image':
      return IMAGE_TOKENS;
    case 'tool_use':
      return text(block.name) + text(JSON.stringify(block.input));
    case 'tool_result': {
      let n = 0;
      for (const part of block.content) n += blockTokens(part, text);
      return n;
    }
    case 'thinking':
      return text(block.thinking);
    case 'redacted_thinking':
      // Opaque encrypted payload: its length says little about the tokens it stands for.
      return 0;
  }
}

/** System text, every message block, tool schemas as JSON, a flat figure per image and per message. */
function requestTokens(req: ChatRequest, text: (s: string) => number): number {
  let n = PER_REQUEST_TOKENS;
  for (const block of req.system) n += text(block.text);
  for (const message of req.messages) {
    n += PER_MESSAGE_TOKENS;
    for (const block of message.content) n += blockTokens(block, text);
  }
  for (const tool of req.tools) {
    n += text(JSON.stringify({ name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema }));
  }
  return n;
}

/**
 * Prompt size of a request: system text, every message block, tool schemas as JSON, a flat
 * figure per image and a small per-message overhead. An estimate, not the upstream's count.
 */
export function estimateRequestTokens(req: ChatRequest): number {
  return requestTokens(req, estimateTextTokens);
}

/** UTF-8 bytes per token assumed by `quickRequestTokens`: English runs about 4, so this leans high. */
export const QUICK_BYTES_PER_TOKEN = 3;

function quickText(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / QUICK_BYTES_PER_TOKEN);
}

/**
 * Prompt size without the tokenizer: a third of the UTF-8 bytes, plus the same per-message and
 * per-image figures as `estimateRequestTokens`. Above the real count for most text (which is why
 * budgets reserve with it), and free of the BPE tables, whose tens of megabytes make every garbage
 * collection of a busy gateway slower.
 */
export function quickRequestTokens(req: ChatRequest): number {
  return requestTokens(req, quickText);
}
