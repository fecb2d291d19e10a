// Output stage for a whole (non-streamed) answer. Placeholders the input stage may restore are put
// back first; the checks then look at that text but leave the restored values alone, since the
// caller sent them. Tool-call arguments get their placeholders restored too (a model told to email
// [EMAIL_1] must call the tool with the real address) but are not scanned.
import type { Block, ChatResponse } from '../ir/types.ts';
import { mapJsonStrings } from '../util/json.ts';
import { activeChecks, textPass, VerdictTally } from './engine.ts';
import { type HookContext, runHooks } from './hooks.ts';
import type { GuardrailEvaluation } from './input.ts';
import { PlaceholderBook, restoreText } from './placeholders.ts';
import type { GuardrailPolicy, GuardrailWebhookCaller } from './policy.ts';

/**
 * Built-in output checks over an answer, synchronously. Pass the input stage's book. `restore: false`
 * gives the copy to keep at rest (log, cache): output matches masked, the input's placeholders left
 * in place, so no original is stored.
 */
export function evaluateOutputChecks(
  policies: readonly GuardrailPolicy[],
  res: ChatResponse,
  book = new PlaceholderBook(),
  opts: { restore?: boolean } = {},
): GuardrailEvaluation<ChatResponse> {
  const restore = opts.restore !== false;
  const checks = activeChecks(policies, 'output');
  const tally = new VerdictTally('output');
  let block: GuardrailEvaluation<ChatResponse>['blocked'] = null;
  let changed = false;
  const content = res.content.map((b): Block => {
    if (b.type === 'text') {
      const r = textPass(restore ? restoreText(b.text, book) : b.text, checks, tally, book, book.restoredValues);
      if (r.block && !block) block = tally.get(r.block)!;
      if (r.text === b.text) return b;
      changed = true;
      return { ...b, text: r.text };
    }
    if (b.type === 'tool_use' && restore && book.restore.size > 0) {
      const input = mapJsonStrings(b.input, (s) => restoreText(s, book));
      if (JSON.stringify(input) === JSON.stringify(b.input)) return b;
      changed = true;
      return { ...b, input };
    }
    return b;
  });
  return { value: changed ? { ...res, content } : res, verdicts: tally.verdicts(), blocked: block, book };
}

/** The answer's text as a hook sees it. */
export function answerText(res: ChatResponse): string {
  return res.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n\n');
}

/** The whole output stage: built-in checks, then the webhook checks on the (masked) answer text. */
export async function guardOutput(
  policies: readonly GuardrailPolicy[],
  res: ChatResponse,
  ctx: HookContext,
  book: PlaceholderBook,
  callHook?: GuardrailWebhookCaller,
): Promise<GuardrailEvaluation<ChatResponse>> {
  const result = evaluateOutputChecks(policies, res, book);
  if (result.blocked) return result;
  const hooks = activeChecks(policies, 'output').filter((a) => a.check.type === 'webhook');
  if (hooks.length === 0) return result;
  const payload = {
    stage: 'output' as const,
    request_id: ctx.request_id,
    project_id: ctx.project_id,
    model: ctx.model,
    text: answerText(result.value),
  };
  const outcome = await runHooks(hooks, payload, callHook);
  let value = result.value;
  if (outcome.replacement !== undefined) {
    const replacement = outcome.replacement;
    const first = value.content.findIndex((b) => b.type === 'text');
    const content = value.content.filter((b, i) => b.type !== 'text' || i === first);
    value = {
      ...value,
      content:
        first < 0
          ? [{ type: 'text', text: replacement }, ...content]
          : content.map((b) => (b.type === 'text' ? { ...b, text: replacement } : b)),
    };
  }
  return { value, verdicts: [...result.verdicts, ...outcome.verdicts], blocked: outcome.blocked, book };
}
