// Computes a chat answer (pure apart from id/clock): text or tool calls, finish reason and usage.
import { countTokens, parseScript, replyText, type Script } from '../script.ts';
import { lastUserText, promptText } from './chat-text.ts';
import { chatTools, type FakeToolCall, makeToolCalls, pickTools } from './tool-args.ts';
import { isRecord, type Json, newId, nowSec, num, str } from './util.ts';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  script: Script;
  /** Number of choices (`n`); every choice carries the same answer. */
  n: number;
  text: string | null;
  toolCalls: FakeToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: ChatUsage;
}

/** Expects a request that passed `validateChat`. `model` lets Azure substitute the deployment name. */
export function answerChat(body: Json, model = str(body.model) ?? ''): ChatAnswer {
  const script = parseScript(model);
  const messages = body.messages as Json[];
  const userText = lastUserText(messages);
  const n = num(body.n) ?? 1;
  const promptTokens = countTokens(promptText(messages));
  const toolCalls = wantsTools(body, messages, script) ? toolCallsFor(body, script, userText) : [];
  let text: string | null = null;
  let finishReason: ChatAnswer['finishReason'] = 'stop';
  let completion = 0;
  if (toolCalls.length > 0) {
    finishReason = 'tool_calls';
    for (const c of toolCalls) completion += countTokens(c.name + c.arguments);
  } else {
    const asJson = isRecord(body.response_format) && String(body.response_format.type).startsWith('json');
    text = replyText(asJson && !script.json && !script.badjson ? { ...script, json: true } : script, userText);
    const cut = applyStop(text, body.stop);
    if (cut !== undefined) text = cut;
    const limit = num(body.max_completion_tokens) ?? num(body.max_tokens);
    if (limit !== undefined && countTokens(text) > limit) {
      text = text.slice(0, Math.max(0, limit * 4));
      finishReason = 'length';
    }
    completion = countTokens(text);
  }
  completion *= n;
  return {
    id: newId('chatcmpl-'),
    created: nowSec(),
    model,
    script,
    n,
    text,
    toolCalls,
    finishReason,
    usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion },
  };
}

/** A `tools` model answers tool results with text, so agent loops in tests terminate. */
function wantsTools(body: Json, messages: Json[], script: Script): boolean {
  if (script.toolCalls === 0 && body.tool_choice !== 'required' && !isRecord(body.tool_choice)) return false;
  if (body.tool_choice === 'none') return false;
  return messages[messages.length - 1].role !== 'tool';
}

function toolCallsFor(body: Json, script: Script, text: string): FakeToolCall[] {
  const tools = chatTools(body.tools);
  const forced =
    isRecord(body.tool_choice) && isRecord(body.tool_choice.function) ? str(body.tool_choice.function.name) : undefined;
  const count = body.parallel_tool_calls === false ? 1 : Math.max(1, script.toolCalls);
  return makeToolCalls(pickTools(tools, count, forced), text, 'call_');
}

function applyStop(text: string, stop: unknown): string | undefined {
  const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : [];
  let best: number | undefined;
  for (const s of list) {
    if (typeof s !== 'string' || s === '') continue;
    const at = text.indexOf(s);
    if (at !== -1 && (best === undefined || at < best)) best = at;
  }
  return best === undefined ? undefined : text.slice(0, best);
}

/** The non-stream `chat.completion` object. */
export function chatCompletionJson(a: ChatAnswer, extra: Json = {}): Json {
  const message: Json = { role: 'assistant', content: a.text, refusal: null, annotations: [] };
  if (a.toolCalls.length > 0)
    message.tool_calls = a.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  const choices = [];
  for (let i = 0; i < a.n; i++) choices.push({ index: i, message, logprobs: null, finish_reason: a.finishReason });
  return {
    id: a.id,
    object: 'chat.completion',
    created: a.created,
    model: a.model,
    choices,
    usage: {
      ...a.usage,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_fake0001',
    ...extra,
  };
}
