// Request-level validation of a Messages body; returns the normalised request or the API's 400 message.
import type { InBlock, InMessage, InTool, MessagesRequest } from './types.ts';
import { isInt, isObj, isStr, type Json } from './util.ts';
import { checkBlock, checkCacheControl } from './validate-blocks.ts';

/** `messages`: POST /v1/messages; `count`: count_tokens (no max_tokens); `bedrock`: InvokeModel body. */
export type ValidateMode = 'messages' | 'count' | 'bedrock';

export type Validated = { ok: true; req: MessagesRequest } | { ok: false; message: string };

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
/** Top-level fields the API knows; anything else is refused, which catches leaked foreign fields. */
const KNOWN_FIELDS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'metadata',
  'stream',
  'service_tier',
  'output_config',
  'output_format',
  'container',
  'mcp_servers',
  'context_management',
  'inference_geo',
  'cache_control',
]);
const BEDROCK_FIELDS = new Set(['anthropic_version', 'anthropic_beta']);
const MAX_BREAKPOINTS = 4;

function fail(message: string): Validated {
  return { ok: false, message };
}

function toBlocks(content: unknown): InBlock[] | undefined {
  if (isStr(content)) return content.length === 0 ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as InBlock[]) : undefined;
}

function checkSystem(system: unknown): { blocks: InBlock[] } | { error: string } {
  if (system === undefined) return { blocks: [] };
  if (isStr(system)) return { blocks: system.length ? [{ type: 'text', text: system }] : [] };
  if (!Array.isArray(system)) return { error: 'system: Input should be a valid string or list of text blocks' };
  for (let i = 0; i < system.length; i++) {
    const b = system[i];
    if (!isObj(b) || b.type !== 'text' || !isStr(b.text)) return { error: `system.${i}: Input should be a text block` };
    const cc = checkCacheControl(b.cache_control, `system.${i}`);
    if (cc) return { error: cc };
  }
  return { blocks: system as InBlock[] };
}

function checkTools(tools: unknown): { tools: InTool[] } | { error: string } {
  if (tools === undefined) return { tools: [] };
  if (!Array.isArray(tools)) return { error: 'tools: Input should be a valid list' };
  const out: InTool[] = [];
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i];
    if (!isObj(t)) return { error: `tools.${i}: Input should be a valid dictionary` };
    const custom = t.type === undefined || t.type === null || t.type === 'custom';
    if (!isStr(t.name) || !TOOL_NAME.test(t.name))
      return { error: `tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'` };
    if (custom && (!isObj(t.input_schema) || t.input_schema.type !== 'object'))
      return { error: `tools.${i}.input_schema: Field required (a JSON schema with type 'object')` };
    const cc = checkCacheControl(t.cache_control, `tools.${i}`);
    if (cc) return { error: cc };
    if (names.has(t.name)) return { error: `tools: Tool names must be unique (duplicate '${t.name}')` };
    names.add(t.name);
    out.push({ name: t.name, custom, input_schema: custom ? (t.input_schema as Json) : undefined, raw: t });
  }
  return { tools: out };
}

function checkToolChoice(tc: unknown, tools: InTool[], thinking: boolean): string | undefined {
  if (tc === undefined) return undefined;
  if (!isObj(tc) || !['auto', 'any', 'tool', 'none'].includes(String(tc.type)))
    return "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'";
  if (tools.length === 0 && tc.type !== 'none') return 'tool_choice may only be specified while providing tools.';
  if (tc.type === 'tool' && !tools.some((t) => t.name === tc.name))
    return `tool_choice.name: tool '${String(tc.name)}' is not among the provided tools`;
  if (thinking && (tc.type === 'any' || tc.type === 'tool'))
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  return undefined;
}

function checkThinking(body: Json, maxTokens: number, mode: ValidateMode): { on: boolean } | { error: string } {
  const t = body.thinking;
  if (t === undefined || t === null) return { on: false };
  if (!isObj(t)) return { error: 'thinking: Input should be a valid dictionary' };
  if (t.type === 'disabled') return { on: false };
  if (t.type === 'adaptive') return { on: true };
  if (t.type !== 'enabled') return { error: "thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'" };
  if (!isInt(t.budget_tokens) || t.budget_tokens < 1024)
    return { error: 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024' };
  if (mode !== 'count' && t.budget_tokens >= maxTokens)
    return { error: '`max_tokens` must be greater than `thinking.budget_tokens`' };
  if (body.temperature !== undefined && body.temperature !== 1)
    return { error: '`temperature` may only be set to 1 when thinking is enabled' };
  if (body.top_k !== undefined) return { error: '`top_k` must be unset when thinking is enabled' };
  return { on: true };
}

/** Consecutive same-role messages are merged by the API before the tool pairing rules apply. */
function turnsOf(messages: InMessage[]): InMessage[] {
  const turns: InMessage[] = [];
  for (const m of messages) {
    const last = turns[turns.length - 1];
    if (last && last.role === m.role) last.content = [...last.content, ...m.content];
    else turns.push({ role: m.role, content: m.content });
  }
  return turns;
}

function unmatchedResult(turns: InMessage[]): string | undefined {
  for (let i = 0; i < turns.length; i++) {
    if (turns[i].role !== 'user') continue;
    const prev = turns[i - 1];
    const offered = new Set(
      prev?.role === 'assistant' ? prev.content.filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [],
    );
    for (const b of turns[i].content) {
      if (b.type === 'tool_result' && !offered.has(String(b.tool_use_id)))
        return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return undefined;
}

function unansweredUse(turns: InMessage[]): string | undefined {
  for (let i = 0; i + 1 < turns.length; i++) {
    if (turns[i].role !== 'assistant') continue;
    const answered = new Set(
      turns[i + 1].content.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)),
    );
    const missing = turns[i].content.filter((b) => b.type === 'tool_use' && !answered.has(String(b.id)));
    if (missing.length)
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.map((b) => String(b.id)).join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

/** Indices in these messages refer to merged turns, which equal message indices in well-formed input. */
function checkToolPairing(messages: InMessage[]): string | undefined {
  const turns = turnsOf(messages);
  return unmatchedResult(turns) ?? unansweredUse(turns);
}

function checkMessages(raw: unknown): { messages: InMessage[] } | { error: string } {
  if (raw === undefined) return { error: 'messages: Field required' };
  if (!Array.isArray(raw)) return { error: 'messages: Input should be a valid list' };
  if (raw.length === 0) return { error: 'messages: at least one message is required' };
  const out: InMessage[] = [];
  for (let i = 0; i < raw.length; i++) {
    const m = raw[i];
    if (!isObj(m)) return { error: `messages.${i}: Input should be a valid dictionary` };
    if (m.role !== 'user' && m.role !== 'assistant')
      return { error: `messages.${i}.role: Input should be 'user' or 'assistant'` };
    const blocks = toBlocks(m.content);
    if (!blocks) return { error: `messages.${i}.content: Field required` };
    if (blocks.length === 0 && !(m.role === 'assistant' && i === raw.length - 1))
      return {
        error: `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      };
    for (let j = 0; j < blocks.length; j++) {
      const e = checkBlock(blocks[j], m.role, `messages.${i}.content.${j}`);
      if (e) return { error: e };
    }
    out.push({ role: m.role, content: blocks });
  }
  if (out[0].role !== 'user') return { error: 'messages.0.role: the first message must use the "user" role' };
  return { messages: out };
}

function countBreakpoints(system: InBlock[], tools: InTool[], messages: InMessage[]): number {
  let n = tools.filter((t) => isObj(t.raw.cache_control)).length;
  n += system.filter((b) => isObj(b.cache_control)).length;
  for (const m of messages) n += m.content.filter((b) => isObj(b.cache_control)).length;
  return n;
}

function checkSampling(body: Json): string | undefined {
  const t = body.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 1))
    return 'temperature: Input should be between 0 and 1';
  const p = body.top_p;
  if (p !== undefined && (typeof p !== 'number' || p < 0 || p > 1)) return 'top_p: Input should be between 0 and 1';
  const s = body.stop_sequences;
  if (s !== undefined && (!Array.isArray(s) || !s.every(isStr)))
    return 'stop_sequences: Input should be a list of strings';
  return undefined;
}

function checkEnvelope(body: Json, mode: ValidateMode): string | undefined {
  if (mode === 'bedrock') {
    if (body.anthropic_version === undefined)
      return 'Malformed input request: #: required key [anthropic_version] not found';
    if (body.anthropic_version !== 'bedrock-2023-05-31')
      return 'Invalid API version: anthropic_version must be "bedrock-2023-05-31"';
    for (const k of ['model', 'stream'])
      if (k in body) return `Malformed input request: #: extraneous key [${k}] is not permitted`;
    return undefined;
  }
  if (!isStr(body.model) || body.model.length === 0) return 'model: Field required';
  return undefined;
}

function checkExtraFields(body: Json, mode: ValidateMode): string | undefined {
  for (const k of Object.keys(body)) {
    if (KNOWN_FIELDS.has(k) || (mode === 'bedrock' && BEDROCK_FIELDS.has(k))) continue;
    return `${k}: Extra inputs are not permitted`;
  }
  const md = body.metadata;
  if (md !== undefined && md !== null) {
    if (!isObj(md)) return 'metadata: Input should be a valid dictionary';
    for (const k of Object.keys(md)) if (k !== 'user_id') return `metadata.${k}: Extra inputs are not permitted`;
  }
  return undefined;
}

function checkMaxTokens(body: Json, mode: ValidateMode): string | undefined {
  if (mode === 'count') return undefined;
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (!isInt(body.max_tokens)) return 'max_tokens: Input should be a valid integer';
  if (body.max_tokens < 1) return 'max_tokens: Input should be greater than or equal to 1';
  return undefined;
}

/** Validates a Messages body. For `bedrock` the model comes from the URL and is passed in. */
export function validateMessages(body: unknown, mode: ValidateMode, pathModel = ''): Validated {
  if (!isObj(body)) return fail('The request body is not valid JSON (expected an object).');
  const envErr =
    checkEnvelope(body, mode) ?? checkExtraFields(body, mode) ?? checkMaxTokens(body, mode) ?? checkSampling(body);
  if (envErr) return fail(envErr);
  const maxTokens = mode === 'count' ? Number.MAX_SAFE_INTEGER : (body.max_tokens as number);
  const msgs = checkMessages(body.messages);
  if ('error' in msgs) return fail(msgs.error);
  const sys = checkSystem(body.system);
  if ('error' in sys) return fail(sys.error);
  const tools = checkTools(body.tools);
  if ('error' in tools) return fail(tools.error);
  const thinking = checkThinking(body, maxTokens, mode);
  if ('error' in thinking) return fail(thinking.error);
  const later =
    checkToolChoice(body.tool_choice, tools.tools, thinking.on) ??
    checkToolPairing(msgs.messages) ??
    (countBreakpoints(sys.blocks, tools.tools, msgs.messages) > MAX_BREAKPOINTS
      ? `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided.`
      : undefined);
  if (later) return fail(later);
  return {
    ok: true,
    req: {
      model: mode === 'bedrock' ? pathModel : (body.model as string),
      max_tokens: maxTokens,
      system: sys.blocks,
      messages: msgs.messages,
      tools: tools.tools,
      thinking: thinking.on,
      stop_sequences: (body.stop_sequences as string[] | undefined) ?? [],
      stream: body.stream === true,
    },
  };
}
