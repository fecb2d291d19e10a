// What a webhook check's answer means. The HTTP call itself (signing, SSRF policy, timeout) is the
// caller passed in; here live the rules every stage shares: `on_error`, the check's own `action`
// as a ceiling (`flag` only records), and which answer wins when several hooks reply.
import { type ActiveCheck, type GuardrailVerdict, VerdictTally } from './engine.ts';
import type {
  GuardrailWebhookAnswer,
  GuardrailWebhookCaller,
  GuardrailWebhookPayload,
  WebhookCheck,
} from './policy.ts';

/** The call facts a hook is told about. */
export interface HookContext {
  request_id: string;
  project_id: string;
  model: string;
}

export interface HookOutcome {
  verdicts: GuardrailVerdict[];
  /** The first enforcing hook that refused. */
  blocked: GuardrailVerdict | null;
  /** The last enforcing hook's `mask` replacement, if any. */
  replacement?: string;
}

const REASON_MAX = 500;

function wellFormed(a: unknown): a is GuardrailWebhookAnswer {
  if (typeof a !== 'object' || a === null) return false;
  const r = a as Record<string, unknown>;
  return (
    (r.action === 'allow' || r.action === 'block' || r.action === 'mask') &&
    (r.reason === undefined || typeof r.reason === 'string') &&
    (r.replacement === undefined || typeof r.replacement === 'string')
  );
}

type Settled = { ok: true; answer: GuardrailWebhookAnswer } | { ok: false; error: string };

async function ask(
  caller: GuardrailWebhookCaller | undefined,
  payload: GuardrailWebhookPayload,
  check: WebhookCheck,
): Promise<Settled> {
  if (!caller) return { ok: false, error: 'no webhook client configured' };
  try {
    const answer = await caller(payload, check);
    return wellFormed(answer) ? { ok: true, answer } : { ok: false, error: 'malformed answer' };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Asks every hook at once and folds their answers into verdicts, in policy order. */
export async function runHooks(
  hooks: readonly ActiveCheck[],
  payload: GuardrailWebhookPayload,
  caller: GuardrailWebhookCaller | undefined,
): Promise<HookOutcome> {
  const settled = await Promise.all(hooks.map((a) => ask(caller, payload, a.check as WebhookCheck)));
  const tally = new VerdictTally(payload.stage);
  const outcome: HookOutcome = { verdicts: [], blocked: null };
  hooks.forEach((a, i) => {
    const s = settled[i]!;
    const check = a.check as WebhookCheck;
    const recordOnly = check.action === 'flag';
    if (!s.ok) {
      const refuse = (check.on_error ?? 'allow') === 'block';
      const v = tally.add(a, '', 0, {
        action: refuse && !recordOnly ? 'block' : 'flag',
        applied: a.enforce && refuse && !recordOnly,
        reason: `webhook failed (${s.error.slice(0, REASON_MAX)}); on_error ${refuse ? 'block' : 'allow'}`,
      });
      if (v.applied) outcome.blocked ??= v;
      return;
    }
    const { action, reason, replacement } = s.answer;
    if (action === 'allow') return;
    // A `mask` without a replacement has nothing to put in place of the text: refuse instead.
    const masks = action === 'mask' && replacement !== undefined;
    const v = tally.add(a, '', 0, {
      action: recordOnly ? 'flag' : masks ? 'mask' : 'block',
      applied: a.enforce && !recordOnly,
      ...(reason !== undefined ? { reason: reason.slice(0, REASON_MAX) } : {}),
    });
    if (!v.applied) return;
    if (v.action === 'block') outcome.blocked ??= v;
    else outcome.replacement = replacement;
  });
  outcome.verdicts = tally.verdicts();
  return outcome;
}
