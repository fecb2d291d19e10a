// Converse <-> the Anthropic-shaped request/answer the shared reply logic works on.
import type { InBlock, InMessage, InTool, MessageOut, MessagesRequest, OutBlock } from '../anthropic/types.ts';
import { isObj, isStr, type Json } from '../anthropic/util.ts';

const DEFAULT_MAX_TOKENS = 4096;
const EPHEMERAL = { type: 'ephemeral' };

function toolResultText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => (isObj(c) && isStr(c.text) ? c.text : isObj(c) && c.json !== undefined ? JSON.stringify(c.json) : ''))
    .filter((s) => s.length > 0)
    .join('\n');
}

function toBlock(b: Json): InBlock | undefined {
  if (isStr(b.text)) return { type: 'text', text: b.text };
  if (isObj(b.toolUse))
    return { type: 'tool_use', id: String(b.toolUse.toolUseId), name: String(b.toolUse.name), input: b.toolUse.input };
  if (isObj(b.toolResult))
    return {
      type: 'tool_result',
      tool_use_id: String(b.toolResult.toolUseId),
      content: toolResultText(b.toolResult.content),
    };
  if (isObj(b.reasoningContent) && isObj(b.reasoningContent.reasoningText))
    return { type: 'thinking', thinking: String(b.reasoningContent.reasoningText.text), signature: '' };
  if (isObj(b.image)) return { type: 'image', source: b.image };
  if (isObj(b.document)) return { type: 'document', source: b.document };
  return undefined;
}

/** cachePoint blocks mark a breakpoint on the block before them, like Anthropic's cache_control. */
function withCachePoints(raw: Json[]): InBlock[] {
  const out: InBlock[] = [];
  for (const b of raw) {
    if (isObj(b.cachePoint)) {
      const prev = out[out.length - 1];
      if (prev) out[out.length - 1] = { ...prev, cache_control: EPHEMERAL };
      continue;
    }
    const block = toBlock(b);
    if (block) out.push(block);
  }
  return out;
}

function toolsOf(tc: unknown): InTool[] {
  if (!isObj(tc) || !Array.isArray(tc.tools)) return [];
  const out: InTool[] = [];
  for (const t of tc.tools as Json[]) {
    if (isObj(t.cachePoint)) {
      const prev = out[out.length - 1];
      if (prev) prev.raw = { ...prev.raw, cache_control: EPHEMERAL };
      continue;
    }
    const spec = t.toolSpec as Json;
    const schema = (spec.inputSchema as Json).json as Json;
    out.push({ name: String(spec.name), custom: true, input_schema: schema, raw: { ...spec } });
  }
  return out;
}

function thinkingOn(extra: unknown): boolean {
  if (!isObj(extra)) return false;
  const t = extra.thinking ?? extra.reasoning_config;
  return isObj(t) && (t.type === 'enabled' || t.type === 'adaptive');
}

/** Maps a validated Converse body onto the shared request shape. */
export function converseToMessages(modelId: string, body: Json): MessagesRequest {
  const ic = isObj(body.inferenceConfig) ? body.inferenceConfig : {};
  const messages: InMessage[] = (body.messages as Json[]).map((m) => ({
    role: m.role as 'user' | 'assistant',
    content: withCachePoints(m.content as Json[]),
  }));
  return {
    model: modelId,
    max_tokens: typeof ic.maxTokens === 'number' ? ic.maxTokens : DEFAULT_MAX_TOKENS,
    system: withCachePoints(Array.isArray(body.system) ? (body.system as Json[]) : []),
    messages,
    tools: toolsOf(body.toolConfig),
    thinking: thinkingOn(body.additionalModelRequestFields),
    stop_sequences: Array.isArray(ic.stopSequences) ? ic.stopSequences.filter(isStr) : [],
    stream: false,
  };
}

export function toolUseId(anthropicId: string): string {
  return `tooluse_${anthropicId.replace(/^toolu_01/, '')}`;
}

export function converseBlock(b: OutBlock): Json {
  if (b.type === 'text') return { text: b.text };
  if (b.type === 'thinking')
    return { reasoningContent: { reasoningText: { text: b.thinking, signature: b.signature } } };
  // Converse (not ConverseStream) repeats the block kind inside toolUse, as recorded from the API.
  return { toolUse: { toolUseId: toolUseId(b.id), name: b.name, input: b.input, type: 'tool_use' } };
}

export function converseUsage(msg: MessageOut, cached: boolean): Json {
  const u = msg.usage;
  return {
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    totalTokens: u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
    ...(cached
      ? { cacheReadInputTokens: u.cache_read_input_tokens, cacheWriteInputTokens: u.cache_creation_input_tokens }
      : {}),
  };
}

/**
 * Converse's answer always carries the cache counters, zero without cache points, each under two
 * spellings (`cacheReadInputTokens` and `cacheReadInputTokenCount`), and an empty `serverToolUsage`:
 * that is what the API sends today. ConverseStream's metadata does not.
 */
function converseJsonUsage(msg: MessageOut): Json {
  const read = msg.usage.cache_read_input_tokens;
  const write = msg.usage.cache_creation_input_tokens;
  return {
    ...converseUsage(msg, false),
    cacheReadInputTokenCount: read,
    cacheReadInputTokens: read,
    cacheWriteInputTokenCount: write,
    cacheWriteInputTokens: write,
    serverToolUsage: {},
  };
}

export function converseResponse(msg: MessageOut, latencyMs: number): Json {
  return {
    output: { message: { role: 'assistant', content: msg.content.map(converseBlock) } },
    stopReason: msg.stop_reason,
    usage: converseJsonUsage(msg),
    metrics: { latencyMs },
  };
}
