// Input stage: the checks over an IR request before it is routed. Scans the system prompt, every
// message's text and the text of tool results; thinking blocks are left alone (they are signed and
// must go back verbatim), images and tool-call arguments are not text the checks understand.
import type { ChatRequest, Message, TextBlock, ToolResultBlock } from '../ir/types.ts';
import { estimateRequestTokens, estimateTextTokens } from '../tokens/estimate.ts';
import {
  type ActiveCheck,
  activeChecks,
  type GuardrailVerdict,
  type TextPassResult,
  textPass,
  VerdictTally,
} from './engine.ts';
import { type HookContext, runHooks } from './hooks.ts';
import { PlaceholderBook } from './placeholders.ts';
import type { GuardrailPolicy, GuardrailWebhookCaller, GuardrailWebhookPayload } from './policy.ts';

export interface GuardrailEvaluation<T> {
  /** What to pass on: a masked copy, or the very same object when nothing was masked. */
  value: T;
  verdicts: GuardrailVerdict[];
  /** Set when an enforcing check refuses the call; answer 400 `guardrail_blocked`. */
  blocked: GuardrailVerdict | null;
  /** Placeholders of this call; hand it to the output stage so numbering and restore carry over. */
  book: PlaceholderBook;
}

type Role = NonNullable<GuardrailWebhookPayload['messages']>[number]['role'];

/** Calls `visit` on every scanned text of the request and rebuilds only what changed. */
function mapRequestTexts(req: ChatRequest, visit: (text: string, role: Role) => string): ChatRequest {
  let changed = false;
  const text = (b: TextBlock, role: Role): TextBlock => {
    const t = visit(b.text, role);
    if (t === b.text) return b;
    changed = true;
    return { ...b, text: t };
  };
  const system = req.system.map((b) => text(b, 'system'));
  const messages = req.messages.map((m): Message => {
    let touched = false;
    const content = m.content.map((b) => {
      let next = b;
      if (b.type === 'text') next = text(b, m.role);
      else if (b.type === 'tool_result') {
        const parts = b.content.map((p) => (p.type === 'text' ? text(p, 'tool') : p));
        if (parts.some((p, i) => p !== b.content[i])) next = { ...b, content: parts } satisfies ToolResultBlock;
      }
      if (next !== b) touched = true;
      return next;
    });
    return touched ? { ...m, content } : m;
  });
  return changed ? { ...req, system, messages } : req;
}

function limitVerdicts(req: ChatRequest, checks: readonly ActiveCheck[], tally: VerdictTally): ActiveCheck | null {
  let block: ActiveCheck | null = null;
  let tokens: number | undefined;
  for (const a of checks) {
    let over = false;
    if (a.check.type === 'max_messages' && req.messages.length > a.check.limit) {
      tally.add(a, 'messages', req.messages.length);
      over = true;
    } else if (a.check.type === 'max_input_tokens') {
      tokens ??= estimateRequestTokens(req);
      if (tokens > a.check.limit) {
        tally.add(a, 'tokens', tokens);
        over = true;
      }
    }
    if (over && a.enforce && a.check.action === 'block') block ??= a;
  }
  return block;
}

/**
 * The built-in checks (everything but webhooks) over a request, synchronously. `book` is new per
 * call unless the caller continues one.
 */
export function evaluateInputChecks(
  policies: readonly GuardrailPolicy[],
  req: ChatRequest,
  book = new PlaceholderBook(),
): GuardrailEvaluation<ChatRequest> {
  const checks = activeChecks(policies, 'input');
  const tally = new VerdictTally('input');
  let block = limitVerdicts(req, checks, tally);
  const value = mapRequestTexts(req, (t) => {
    const r: TextPassResult = textPass(t, checks, tally, book);
    block ??= r.block;
    return r.text;
  });
  return { value, verdicts: tally.verdicts(), blocked: block ? tally.get(block)! : null, book };
}

/**
 * The built-in checks over bare texts: embeddings input, image prompts, anything that is not a chat
 * request. `max_input_tokens` counts the texts' tokens; `max_messages` does not apply.
 */
export function evaluateInputTexts(
  policies: readonly GuardrailPolicy[],
  texts: readonly string[],
  book = new PlaceholderBook(),
): GuardrailEvaluation<string[]> {
  const checks = activeChecks(policies, 'input');
  const tally = new VerdictTally('input');
  let block: ActiveCheck | null = null;
  let tokens: number | undefined;
  for (const a of checks) {
    if (a.check.type !== 'max_input_tokens') continue;
    tokens ??= texts.reduce((n, t) => n + estimateTextTokens(t), 0);
    if (tokens <= a.check.limit) continue;
    tally.add(a, 'tokens', tokens);
    if (a.enforce && a.check.action === 'block') block ??= a;
  }
  const value = texts.map((t) => {
    const r = textPass(t, checks, tally, book);
    block ??= r.block;
    return r.text;
  });
  return { value, verdicts: tally.verdicts(), blocked: block ? tally.get(block)! : null, book };
}

/** Replaces the text of the last user message (a webhook's `mask` answer). */
function replaceLastUserText(req: ChatRequest, replacement: string): ChatRequest {
  const at = req.messages.findLastIndex((m) => m.role === 'user');
  if (at < 0) return req;
  const m = req.messages[at]!;
  const others = m.content.filter((b) => b.type !== 'text');
  const messages = req.messages.slice();
  messages[at] = { ...m, content: [{ type: 'text', text: replacement }, ...others] };
  return { ...req, messages };
}

/**
 * The whole input stage: built-in checks, then (unless they already refuse) every webhook check at
 * once, shown the masked text. A hook's `mask` replaces the last user message.
 */
export async function guardInput(
  policies: readonly GuardrailPolicy[],
  req: ChatRequest,
  ctx: HookContext,
  callHook?: GuardrailWebhookCaller,
): Promise<GuardrailEvaluation<ChatRequest>> {
  const result = evaluateInputChecks(policies, req);
  if (result.blocked) return result;
  const hooks = activeChecks(policies, 'input').filter((a) => a.check.type === 'webhook');
  if (hooks.length === 0) return result;
  const messages: NonNullable<GuardrailWebhookPayload['messages']> = [];
  mapRequestTexts(result.value, (text, role) => {
    messages.push({ role, text });
    return text;
  });
  const payload: GuardrailWebhookPayload = {
    stage: 'input',
    request_id: ctx.request_id,
    project_id: ctx.project_id,
    model: ctx.model,
    text: messages.map((m) => m.text).join('\n\n'),
    messages,
  };
  const outcome = await runHooks(hooks, payload, callHook);
  let value = result.value;
  if (outcome.replacement !== undefined) value = replaceLastUserText(value, outcome.replacement);
  return {
    value,
    verdicts: [...result.verdicts, ...outcome.verdicts],
    blocked: outcome.blocked,
    book: result.book,
  };
}
