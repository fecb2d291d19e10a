// Cache keys computed on the canonical IR, so that a request sent through either family finds the
// entries written through the other (SPEC "Semantic cache behavior" 2). Three parts:
//
// - fingerprint: everything except the conversation that changes the answer (system, tools,
//   tool_choice, response format, sampling). Entries are partitioned by it: the semantic tier only
//   compares prompts whose fingerprints are equal. max_tokens is not in it: only answers that ended
//   on their own are stored, and such an answer of N output tokens is the answer to any call whose
//   max_tokens is unset or at least N (fitsMaxTokens in eligibility.ts decides at hit time). Keying
//   on the limit split the usual SDK calls: the alpha SDKs send none, the beta family must send one.
// - exactKey: tenant + model as requested + fingerprint + the canonical messages.
// - promptText: the conversation as the text the semantic tier embeds.
//
// Deliberately left out of every key, because they do not change what the model says: `stream` (a hit
// replays as a stream when asked), `user` / `metadata` / `svc:*` (attribution only; end-user isolation
// is the tenant's job), `stream_options`, block `cacheControl` hints (upstream prompt-cache pricing),
// thinking `signature`s (opaque proofs of the thinking text, which is kept), and the resolved upstream
// model (`req.model`: for an `@slug` it varies per attempt; the key uses the model as requested).

import type { WireExtras } from '../families/shared/codec.ts';
import type { Block, ChatRequest, JsonValue, Params } from '../ir/types.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';

/** Bumped whenever the canonical form changes, so entries written under the old form stop matching. */
const KEY_VERSION = 'v2';

/** Output options of the called wire with no IR slot: the family codec reads them from the raw body. */
export type { WireExtras } from '../families/shared/codec.ts';

/**
 * A thinking budget rounded up to a power of two: 1000 and 1010 share the bucket 1024. The budget is
 * a target the model plans its reasoning around, not a cap the answer is checked against, so it stays
 * in the fingerprint; clients compute it loosely, and exact values would scatter identical questions
 * over many keys. Unset stays null.
 */
export function tokenBucket(n: number | undefined): number | null {
  if (n === undefined) return null;
  let bucket = 1;
  while (bucket < n) bucket *= 2;
  return bucket;
}

function canonicalParams(p: Params, extras: WireExtras): Record<string, unknown> {
  return {
    temperature: p.temperature,
    top_p: p.topP,
    top_k: p.topK,
    seed: p.seed,
    // A set, not a list: the order of stop sequences does not change where the answer stops.
    stop: p.stop === undefined ? undefined : [...new Set(p.stop)].sort(),
    thinking: p.thinking === undefined ? undefined : tokenBucket(p.thinking.budgetTokens),
    parallel_tool_calls: p.parallelToolCalls,
    response_format: p.responseFormat,
    presence_penalty: p.presencePenalty,
    frequency_penalty: p.frequencyPenalty,
    logit_bias: p.logitBias,
    n: extras.n,
    logprobs: extras.logprobs,
    top_logprobs: extras.topLogprobs,
  };
}

/** sha256 hex of everything but the conversation that changes the answer (see the file header). */
export function fingerprint(req: ChatRequest, extras: WireExtras = {}): string {
  return sha256Hex(
    canonicalJson({
      v: KEY_VERSION,
      system: req.system.map((b) => b.text),
      // Tool order is kept: it is part of the prompt the model reads.
      tools: req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
      tool_choice: req.toolChoice,
      params: canonicalParams(req.params, extras),
    }),
  );
}

/**
 * Tool-call ids are minted per call by each upstream (`call_...`, `toolu_...`), so the same history
 * replayed carries different ids. The model only uses them to pair calls with results, which
 * numbering them by first appearance preserves.
 */
class ToolIds {
  private readonly ids = new Map<string, string>();
  of(id: string): string {
    let n = this.ids.get(id);
    if (n === undefined) {
      n = `t${this.ids.size}`;
      this.ids.set(id, n);
    }
    return n;
  }
}

function canonicalBlock(b: Block, ids: ToolIds): JsonValue {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'image':
      return b.source.kind === 'url'
        ? { type: 'image', url: b.source.url }
        : { type: 'image', media_type: b.source.mediaType, data: b.source.data };
    case 'tool_use':
      return { type: 'tool_use', id: ids.of(b.id), name: b.name, input: b.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        id: ids.of(b.toolUseId),
        content: b.content.map((c) => canonicalBlock(c, ids)),
        is_error: b.isError === true,
      };
    case 'thinking':
      return { type: 'thinking', thinking: b.thinking };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
  }
}

/** The conversation as a JSON value: role + canonical blocks per message. */
export function canonicalMessages(req: ChatRequest): JsonValue {
  const ids = new ToolIds();
  return req.messages.map((m) => ({ role: m.role, content: m.content.map((b) => canonicalBlock(b, ids)) }));
}

/**
 * The exact-tier key. `tenant` is built by the caller (cacheTenant in settings.ts); `model` is the
 * model as requested (`openai/gpt-4o`, `gpt-4o`, `@support-bot`). The parts are hashed as one JSON
 * array, so no choice of strings can make two different tuples collide by concatenation.
 */
export function exactKey(tenant: string, model: string, req: ChatRequest, extras: WireExtras = {}): string {
  return cacheKeys(tenant, model, req, extras).exact;
}

/** Both keys of a request, hashing the fingerprint once (the proxy path computes them per call). */
export function cacheKeys(
  tenant: string,
  model: string,
  req: ChatRequest,
  extras: WireExtras = {},
): { exact: string; partition: string } {
  const fp = fingerprint(req, extras);
  return {
    exact: sha256Hex(canonicalJson([KEY_VERSION, tenant, model, fp, canonicalMessages(req)])),
    partition: sha256Hex(canonicalJson([KEY_VERSION, 'semantic', tenant, model, fp])),
  };
}

/** The partition of the semantic tier: only prompts under the same tenant, model and fingerprint compete. */
export function partitionKey(tenant: string, model: string, req: ChatRequest, extras: WireExtras = {}): string {
  return cacheKeys(tenant, model, req, extras).partition;
}

const messageText = (content: readonly Block[]): string =>
  content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');

/**
 * The text the semantic tier embeds. System text is left out: it is in the fingerprint already, and a
 * long shared system prompt would make every prompt of the project look alike. A single user turn is
 * its bare text, since a role marker that every prompt shares would only add common features;
 * longer conversations mark each turn so who said what still counts.
 */
export function promptText(req: ChatRequest): string {
  const { messages } = req;
  if (messages.length === 1 && messages[0].role === 'user') return messageText(messages[0].content);
  return messages.map((m) => `${m.role}: ${messageText(m.content)}`).join('\n\n');
}
