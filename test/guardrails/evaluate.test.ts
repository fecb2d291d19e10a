import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { blockMessage, selectPolicies } from '../../src/guardrails/engine.ts';
import { evaluateInputChecks, evaluateInputTexts, guardInput } from '../../src/guardrails/input.ts';
import { evaluateOutputChecks, guardOutput } from '../../src/guardrails/output.ts';
import { maskKnownValues } from '../../src/guardrails/placeholders.ts';
import type { GuardrailWebhookAnswer, GuardrailWebhookPayload, WebhookCheck } from '../../src/guardrails/policy.ts';
import type { ChatRequest } from '../../src/ir/types.ts';
import { answer, answerTextOf, policy, request, userTexts } from './fixtures.ts';

const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';
const BAD_CARD = '4111 1111 1111 1112';
const ctx = { request_id: 'req_1', project_id: 'proj_1', model: 'gpt-test' };

const maskPii = (restore = false) =>
  policy([{ type: 'pii', stage: 'both', action: 'mask', entities: ['email', 'credit_card'], restore }]);

describe('selectPolicies', () => {
  it('keeps the policies whose scope matches, org first, then project, api key, routing config', () => {
    const rc = policy([], { scope: { type: 'routing_config', id: 'rc_1' } });
    const key = policy([], { scope: { type: 'api_key', id: 'key_1' } });
    const proj = policy([], { scope: { type: 'project', id: 'proj_1' } });
    const otherProj = policy([], { scope: { type: 'project', id: 'proj_2' } });
    const org = policy([]);
    const otherOrg = policy([], { org_id: 'org_2' });
    const got = selectPolicies([rc, key, proj, otherProj, org, otherOrg], {
      org_id: 'org_1',
      project_id: 'proj_1',
      api_key_id: 'key_1',
      routing_config_id: 'rc_1',
    });
    assert.deepEqual(
      got.map((p) => p.id),
      [org.id, proj.id, key.id, rc.id],
    );
    assert.deepEqual(selectPolicies([rc, key, proj], { org_id: 'org_1', project_id: 'proj_1' }), [proj]);
  });

  it('orders policies of one scope by creation time, then id', () => {
    const later = policy([], { created_at: '2026-02-01T00:00:00Z' });
    const earlier = policy([], { created_at: '2026-01-15T00:00:00Z' });
    assert.deepEqual(
      selectPolicies([later, earlier], { org_id: 'org_1' }).map((p) => p.id),
      [earlier.id, later.id],
    );
  });
});

describe('input stage', () => {
  it('masks an email and a Luhn-valid card with typed placeholders and leaves a Luhn-invalid number', () => {
    const req = request(`Mail ${EMAIL}, card ${CARD}, not ${BAD_CARD}, again ${EMAIL}`);
    const r = evaluateInputChecks([maskPii()], req);
    assert.equal(r.blocked, null);
    assert.deepEqual(userTexts(r.value), [`Mail [EMAIL_1], card [CREDIT_CARD_1], not ${BAD_CARD}, again [EMAIL_1]`]);
    assert.deepEqual(
      r.verdicts.map((v) => [v.stage, v.action, v.applied, v.counts]),
      [['input', 'mask', true, { email: 2, credit_card: 1 }]],
    );
    assert.equal(userTexts(req)[0]!.includes(EMAIL), true, 'the caller’s request object is not modified');
  });

  it('numbers placeholders per type across the whole call: system, turns and tool results', () => {
    const req: ChatRequest = {
      ...request(['write to a@example.com', 'ok', 'and b@example.com']),
      system: [{ type: 'text', text: 'Owner: b@example.com' }],
    };
    req.messages.push({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'found a@example.com' }] }],
    });
    const r = evaluateInputChecks([maskPii()], req);
    assert.equal(r.value.system[0]!.text, 'Owner: [EMAIL_1]');
    assert.deepEqual(userTexts(r.value), ['write to [EMAIL_2]', 'ok', 'and [EMAIL_1]']);
    const tool = r.value.messages[3]!.content[0]!;
    assert.equal(
      tool.type === 'tool_result' && tool.content[0]?.type === 'text' && tool.content[0].text,
      'found [EMAIL_2]',
    );
  });

  it('returns the same request object when nothing matched', () => {
    const req = request('nothing to see');
    assert.equal(evaluateInputChecks([maskPii()], req).value, req);
  });

  it('blocks on a regex and names policy, check and entity type but never the text', () => {
    const p = policy(
      [{ type: 'regex', stage: 'input', action: 'block', patterns: ['project\\s+falcon'], flags: 'i' }],
      {
        name: 'no codenames',
      },
    );
    const r = evaluateInputChecks([p], request('Tell me about Project  Falcon'));
    assert.ok(r.blocked);
    const msg = blockMessage(r.blocked);
    assert.match(msg, /no codenames/);
    assert.match(msg, /regex/);
    assert.doesNotMatch(msg, /falcon/i);
  });

  it('keywords match whole words, case-insensitively', () => {
    const p = policy([{ type: 'keywords', stage: 'input', action: 'flag', words: ['Secret', 'top plan'] }]);
    const hit = evaluateInputChecks([p], request('This is SECRET and the TOP PLAN.'));
    assert.deepEqual(hit.verdicts[0]?.counts, { keyword: 2 });
    const miss = evaluateInputChecks([p], request('secretly, secrets, top planning'));
    assert.deepEqual(miss.verdicts, []);
  });

  it('shadow mode changes nothing and records what it would have done', () => {
    const p = policy(
      [
        { type: 'pii', stage: 'input', action: 'mask', entities: ['email'] },
        { type: 'keywords', stage: 'input', action: 'block', words: ['forbidden'] },
      ],
      { mode: 'shadow' },
    );
    const req = request(`forbidden ${EMAIL}`);
    const r = evaluateInputChecks([p], req);
    assert.equal(r.value, req);
    assert.equal(r.blocked, null);
    assert.deepEqual(
      r.verdicts.map((v) => [v.mode, v.action, v.applied]),
      [
        ['shadow', 'mask', false],
        ['shadow', 'block', false],
      ],
    );
  });

  it('max_messages and max_input_tokens refuse over their limits and count the size', () => {
    const p = policy([
      { type: 'max_messages', stage: 'input', action: 'block', limit: 2 },
      { type: 'max_input_tokens', stage: 'input', action: 'flag', limit: 12 },
    ]);
    const r = evaluateInputChecks([p], request(['one', 'two', 'three four five six seven eight nine ten']));
    assert.equal(r.blocked?.check_type, 'max_messages');
    assert.deepEqual(r.blocked?.counts, { messages: 3 });
    assert.ok((r.verdicts.find((v) => v.check_type === 'max_input_tokens')?.counts.tokens ?? 0) > 12);
    assert.deepEqual(evaluateInputChecks([p], request('hi')).verdicts, []);
  });
});

describe('output stage', () => {
  it('restores input placeholders for restore: true and masks new PII in the answer', () => {
    const input = evaluateInputChecks([maskPii(true)], request(`my mail is ${EMAIL}`));
    const out = evaluateOutputChecks([maskPii(true)], answer('Sent to [EMAIL_1], cc boss@example.com'), input.book);
    assert.equal(answerTextOf(out.value), `Sent to ${EMAIL}, cc [EMAIL_2]`);
    assert.deepEqual(out.verdicts[0]?.counts, { email: 1 }, 'the restored original is not counted again');
  });

  it('does not restore without restore: true', () => {
    const input = evaluateInputChecks([maskPii(false)], request(`my mail is ${EMAIL}`));
    const out = evaluateOutputChecks([maskPii(false)], answer('Sent to [EMAIL_1]'), input.book);
    assert.equal(answerTextOf(out.value), 'Sent to [EMAIL_1]');
  });

  it('restores placeholders inside tool-call arguments', () => {
    const input = evaluateInputChecks([maskPii(true)], request(`mail "${EMAIL}"`));
    const res = answer('');
    res.content = [{ type: 'tool_use', id: 't', name: 'send', input: { to: ['[EMAIL_1]'] } }];
    const out = evaluateOutputChecks([], res, input.book);
    assert.deepEqual(out.value.content[0], { type: 'tool_use', id: 't', name: 'send', input: { to: [EMAIL] } });
  });
});

describe('webhook checks', () => {
  const hook = (over: Partial<WebhookCheck> = {}): WebhookCheck => ({
    type: 'webhook',
    stage: 'both',
    action: 'block',
    url: 'https://hooks.example.com/check',
    ...over,
  });
  const answering =
    (a: GuardrailWebhookAnswer | Error, seen: GuardrailWebhookPayload[] = []) =>
    async (payload: GuardrailWebhookPayload): Promise<GuardrailWebhookAnswer> => {
      seen.push(payload);
      if (a instanceof Error) throw a;
      return a;
    };

  it('passes on allow and sends the hook the masked text', async () => {
    const seen: GuardrailWebhookPayload[] = [];
    const r = await guardInput(
      [maskPii(), policy([hook()])],
      request(`hi ${EMAIL}`),
      ctx,
      answering({ action: 'allow' }, seen),
    );
    assert.equal(r.blocked, null);
    assert.equal(seen[0]?.text, 'hi [EMAIL_1]');
    assert.deepEqual(seen[0]?.messages, [{ role: 'user', text: 'hi [EMAIL_1]' }]);
    assert.equal(seen[0]?.request_id, 'req_1');
  });

  it('refuses on block with the hook’s reason', async () => {
    const r = await guardInput(
      [policy([hook()])],
      request('hi'),
      ctx,
      answering({ action: 'block', reason: 'off topic' }),
    );
    assert.equal(r.blocked?.reason, 'off topic');
    assert.match(blockMessage(r.blocked!), /off topic/);
  });

  it('mask replaces the last user message (input) or the answer text (output)', async () => {
    const inp = await guardInput(
      [policy([hook()])],
      request(['a', 'b', 'c']),
      ctx,
      answering({ action: 'mask', replacement: 'C' }),
    );
    assert.deepEqual(userTexts(inp.value), ['a', 'b', 'C']);
    const out = await guardOutput(
      [policy([hook()])],
      answer('raw'),
      ctx,
      inp.book,
      answering({ action: 'mask', replacement: 'clean' }),
    );
    assert.equal(answerTextOf(out.value), 'clean');
  });

  it('applies on_error when the hook fails: allow passes, block refuses', async () => {
    const fail = answering(new Error('timeout after 500 ms'));
    const passes = await guardInput([policy([hook({ on_error: 'allow' })])], request('hi'), ctx, fail);
    assert.equal(passes.blocked, null);
    assert.match(passes.verdicts[0]?.reason ?? '', /timeout after 500 ms/);
    const refuses = await guardInput([policy([hook({ on_error: 'block' })])], request('hi'), ctx, fail);
    assert.equal(refuses.blocked?.action, 'block');
  });

  it('a flag hook and a shadow policy only record', async () => {
    const r = await guardInput(
      [policy([hook({ action: 'flag' })]), policy([hook()], { mode: 'shadow' })],
      request('hi'),
      ctx,
      answering({ action: 'block' }),
    );
    assert.equal(r.blocked, null);
    assert.deepEqual(
      r.verdicts.map((v) => [v.action, v.applied]),
      [
        ['flag', false],
        ['block', false],
      ],
    );
  });

  it('does not call hooks when a built-in check already refuses', async () => {
    const seen: GuardrailWebhookPayload[] = [];
    const p = policy([{ type: 'keywords', stage: 'input', action: 'block', words: ['stop'] }, hook()]);
    const r = await guardInput([p], request('stop'), ctx, answering({ action: 'allow' }, seen));
    assert.equal(r.blocked?.check_type, 'keywords');
    assert.equal(seen.length, 0);
  });
});

describe('bare texts (embeddings, image prompts)', () => {
  it('masks each text and counts tokens over all of them', () => {
    const p = policy([
      { type: 'pii', stage: 'input', action: 'mask', entities: ['email'] },
      { type: 'max_input_tokens', stage: 'input', action: 'flag', limit: 3 },
    ]);
    const r = evaluateInputTexts([p], ['embed a@example.com', 'and a@example.com too']);
    assert.deepEqual(r.value, ['embed [EMAIL_1]', 'and [EMAIL_1] too']);
    assert.deepEqual(
      r.verdicts.map((v) => Object.keys(v.counts)),
      [['tokens'], ['email']],
    );
  });
});

describe('copies kept at rest', () => {
  it('maskKnownValues masks a raw body the checks did not walk', () => {
    const input = evaluateInputChecks([maskPii()], request(`mail ${EMAIL} card ${CARD}`));
    const raw = JSON.stringify({ messages: [{ role: 'user', content: `mail ${EMAIL} card ${CARD}` }], user: EMAIL });
    const masked = maskKnownValues(raw, input.book);
    assert.equal(masked.includes(EMAIL) || masked.includes(CARD), false);
    assert.deepEqual(JSON.parse(masked).user, '[EMAIL_1]');
  });

  it('restore: false keeps the input placeholders and masks new output values', () => {
    const input = evaluateInputChecks([maskPii(true)], request(`my mail is ${EMAIL}`));
    const res = answer('Sent to [EMAIL_1], cc boss@example.com');
    const atRest = evaluateOutputChecks([maskPii(true)], res, input.book, { restore: false });
    assert.equal(answerTextOf(atRest.value), 'Sent to [EMAIL_1], cc [EMAIL_2]');
  });
});
