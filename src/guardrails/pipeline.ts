// Guardrails as a pipeline feature: the guard stage of chat calls (pipeline/guard.ts). Before
// routing, the input checks run over the decoded request; what they masked replaces the request the
// rest of the pipeline sees (routing facts, the semantic cache's key, the upstream, the log), and
// the call keeps its placeholder book so that the answer can be checked and restored. Bare texts
// (`checkTexts`: embeddings, and the prompt of a pass-through call, whose body is then masked value by
// value through BODY_MASK) are checked the same way. An org with no policy for the call costs one
// lookup that returns the shared empty array.
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ChatRequest, ChatResponse } from '../ir/types.ts';
import type { AnswerGuard, BodyMask, GuardedAnswer, StreamGuard } from '../pipeline/guard.ts';
import type { GuardStage, GuardSubject, PipelineFeature } from '../pipeline/hooks.ts';
import { addReplyHeader, setSlot } from '../pipeline/lifecycle.ts';
import { BODY_MASK } from '../pipeline/raw-call.ts';
import type { ProxyCall } from '../pipeline/types.ts';
import { activeChecks, type GuardrailVerdict } from './engine.ts';
import type { HookContext } from './hooks.ts';
import { type HookOutcome, runHooks } from './hooks.ts';
import { evaluateInputChecks, evaluateInputTexts, type GuardrailEvaluation, guardInput } from './input.ts';
import { evaluateOutputChecks, guardOutput } from './output.ts';
import { GuardrailStream } from './pipeline-stream.ts';
import { CallVerdicts } from './pipeline-verdicts.ts';
import { maskKnownValues, type PlaceholderBook, placeholderHold, restoreText } from './placeholders.ts';
import { checkRunsAt, type GuardrailPolicy } from './policy.ts';
import type { GuardrailRuntime } from './runtime.ts';

const hasWebhook = (policies: readonly GuardrailPolicy[], stage: 'input' | 'output'): boolean =>
  policies.some((p) => p.checks.some((c) => c.type === 'webhook' && checkRunsAt(c, stage)));

const hasOutputChecks = (policies: readonly GuardrailPolicy[]): boolean =>
  policies.some((p) => p.checks.some((c) => checkRunsAt(c, 'output')));

/** The compiled policies that apply to a call, in apply order; the shared empty array when none do. */
export function policiesFor(
  rt: GuardrailRuntime,
  call: Pick<ProxyCall, 'principal'>,
  subject: GuardSubject,
): readonly GuardrailPolicy[] {
  const p = call.principal;
  if (rt.policies.forOrg(p.orgId).length === 0) return [];
  const routingConfigId = subject.routingConfigId();
  const live = rt.policies.matching(p.orgId, { projectId: p.projectId, apiKeyId: p.keyId, routingConfigId });
  return live.length === 0 ? [] : live.map((l) => l.compiled);
}

export function hookContext(call: ProxyCall, model: string): HookContext {
  return { request_id: call.requestId, project_id: call.principal.projectId ?? '', model };
}

/**
 * A copy of the request as the caller sent it (JSON text) with every value this call masked
 * replaced, for the log row and replay: written as is and as it reads escaped inside a JSON string.
 */
export function maskedBodyText(raw: string, book: PlaceholderBook): string {
  let out = maskKnownValues(raw, book);
  for (const [value, ph] of book.maskedValues()) {
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value && out.includes(escaped)) out = out.split(escaped).join(ph);
  }
  return out;
}

/** A pass-through call's masks, applied to its body value by value and undone in its answer. */
function bodyMask(book: PlaceholderBook): BodyMask {
  const restore =
    book.restore.size === 0
      ? undefined
      : { text: (text: string, inJson: boolean) => restoreText(text, book, inJson), hold: placeholderHold };
  return { body: (json) => maskedBodyText(json, book), restore };
}

/** A hook's mask that could not be applied (several texts): the hook's verdict, refusing. */
function hookMaskVerdict(o: HookOutcome): GuardrailVerdict | null {
  const v = o.verdicts.find((x) => x.action === 'mask' && x.applied);
  return v ? { ...v, action: 'block', reason: 'a webhook mask replaces one text, and this call has several' } : null;
}

/**
 * A webhook's mask replaced the last user message: its text blocks, as they read escaped in the
 * caller's JSON, become the replacement (the first) and nothing (the others).
 */
function replaceLastUserText(raw: string, before: ChatRequest, after: ChatRequest): string {
  const last = before.messages.findLast((m) => m.role === 'user');
  const replacement = after.messages.findLast((m) => m.role === 'user')?.content.find((b) => b.type === 'text');
  if (!last || replacement?.type !== 'text') return raw;
  const esc = (t: string): string => JSON.stringify(t).slice(1, -1);
  let out = raw;
  let first = true;
  for (const b of last.content) {
    if (b.type !== 'text' || b.text === '') continue;
    out = out.split(esc(b.text)).join(first ? esc(replacement.text) : '');
    first = false;
  }
  return out;
}

class ChatAnswerGuard implements AnswerGuard {
  constructor(
    readonly translate: boolean,
    private readonly rt: GuardrailRuntime,
    private readonly policies: readonly GuardrailPolicy[],
    private readonly book: PlaceholderBook,
    private readonly verdicts: CallVerdicts,
    private readonly ctx: HookContext,
  ) {}

  async checkAnswer(res: ChatResponse): Promise<GuardedAnswer | GatewayError> {
    const policies = this.policies;
    const book = this.book;
    if (!this.translate) return { value: res, atRest: res };
    const r = hasWebhook(policies, 'output')
      ? await guardOutput(policies, res, this.ctx, book, this.rt.webhooks.call)
      : evaluateOutputChecks(policies, res, book);
    const error = this.verdicts.add(r.verdicts, r.blocked, this.ctx.model);
    if (error) return error;
    return { value: r.value, atRest: evaluateOutputChecks(policies, res, book, { restore: false }).value };
  }

  openStream(): StreamGuard {
    return new GuardrailStream({
      policies: this.policies,
      book: this.book,
      verdicts: this.verdicts,
      ctx: this.ctx,
      callHook: this.rt.webhooks.call,
    });
  }

  header(): string | undefined {
    return this.verdicts.header();
  }
}

class GuardrailStage implements GuardStage {
  constructor(private readonly rt: GuardrailRuntime) {}

  check(call: ProxyCall, subject: GuardSubject): void | Promise<void> {
    const chat = call.chat;
    if (!chat) return;
    const policies = policiesFor(this.rt, call, subject);
    if (policies.length === 0) return;
    const ctx = hookContext(call, chat.ir.model);
    if (!hasWebhook(policies, 'input')) return this.#apply(call, policies, ctx, evaluateInputChecks(policies, chat.ir));
    return guardInput(policies, chat.ir, ctx, this.rt.webhooks.call).then((r) => this.#apply(call, policies, ctx, r));
  }

  #apply(
    call: ProxyCall,
    policies: readonly GuardrailPolicy[],
    ctx: HookContext,
    r: GuardrailEvaluation<ChatRequest>,
  ): void {
    const chat = call.chat!;
    const verdicts = new CallVerdicts(this.rt, call);
    const error = verdicts.add(r.verdicts, r.blocked, ctx.model);
    const header = verdicts.header();
    if (header !== undefined) addReplyHeader(call, 'x-svc-guardrails', header);
    if (error) throw error;
    const masked = r.value !== chat.ir;
    if (masked) {
      // The caller's bytes hold what was masked: they neither go upstream nor into the log.
      let raw = call.rawBody ?? JSON.stringify(call.body);
      if (r.verdicts.some((v) => v.check_type === 'webhook' && v.action === 'mask' && v.applied))
        raw = replaceLastUserText(raw, chat.ir, r.value);
      call.rawBody = maskedBodyText(raw, r.book);
      chat.ir = r.value;
      chat.rawBody = undefined;
    }
    const translate = masked || hasOutputChecks(policies);
    if (translate || verdicts.list.length > 0)
      chat.guard = new ChatAnswerGuard(translate, this.rt, policies, r.book, verdicts, ctx);
  }

  checkTexts(call: ProxyCall, texts: string[], subject: GuardSubject, canMask: boolean): string[] | Promise<string[]> {
    const policies = policiesFor(this.rt, call, subject);
    if (policies.length === 0) return texts;
    const ctx = hookContext(call, call.modelRequested);
    const r = evaluateInputTexts(policies, texts);
    if (r.blocked || !hasWebhook(policies, 'input')) return this.#applyTexts(call, ctx, texts, r, [], canMask);
    const hooks = activeChecks(policies, 'input').filter((a) => a.check.type === 'webhook');
    const payload = {
      stage: 'input' as const,
      ...ctx,
      text: r.value.join('\n\n'),
      messages: r.value.map((text) => ({ role: 'user' as const, text })),
    };
    return runHooks(hooks, payload, this.rt.webhooks.call).then((o) => {
      let value = r.value;
      // One text is replaced by the hook's; several cannot be told apart in one replacement.
      if (o.replacement !== undefined) value = value.length === 1 ? [o.replacement] : value;
      const blocked = o.blocked ?? (o.replacement !== undefined && value === r.value ? hookMaskVerdict(o) : null);
      return this.#applyTexts(call, ctx, texts, { ...r, value, blocked }, o.verdicts, canMask);
    });
  }

  #applyTexts(
    call: ProxyCall,
    ctx: HookContext,
    original: readonly string[],
    r: GuardrailEvaluation<string[]>,
    hookVerdicts: readonly GuardrailVerdict[],
    canMask: boolean,
  ): string[] {
    const changed = r.value.some((t, i) => t !== original[i]);
    // A pass-through body is not rebuilt from the texts: each masked value is replaced in it, which a
    // webhook's replacement of a whole text is not. A body that cannot be rewritten at all would carry
    // what a policy masks. Either is refused rather than sent.
    const byValue = call.kind === 'raw';
    const unmaskable =
      changed && !r.blocked && (!canMask || byValue)
        ? (canMask ? hookVerdicts : [...r.verdicts, ...hookVerdicts]).find((v) => v.applied && v.action === 'mask')
        : undefined;
    const reason = canMask
      ? "a webhook mask replaces the whole text, and this endpoint's body can only have values replaced"
      : 'this endpoint is passed through as written and cannot be masked';
    const blocked = r.blocked ?? (unmaskable ? { ...unmaskable, reason } : null);
    const verdicts = new CallVerdicts(this.rt, call);
    const error = verdicts.add([...r.verdicts, ...hookVerdicts], blocked, ctx.model);
    const header = verdicts.header();
    if (header !== undefined) addReplyHeader(call, 'x-svc-guardrails', header);
    if (error) throw error;
    if (!changed) return r.value;
    if (byValue) {
      call.rawBody = maskedBodyText(call.rawBody ?? JSON.stringify(call.body), r.book);
      setSlot(call, BODY_MASK, bodyMask(r.book));
    } else if (call.rawBody !== undefined) call.rawBody = maskedBodyText(call.rawBody, r.book);
    return r.value;
  }

  describe(call: ProxyCall, subject: GuardSubject): unknown[] {
    return policiesFor(this.rt, call, subject).map((p) => ({
      id: p.id,
      name: p.name,
      mode: p.mode,
      scope: p.scope,
      checks: p.checks.map((c) => ({ type: c.type, stage: c.stage, action: c.action })),
    }));
  }
}

/** The feature to register with the pipeline (app.ts). */
export function guardrailsFeature(rt: GuardrailRuntime): PipelineFeature {
  return { guard: new GuardrailStage(rt) };
}
