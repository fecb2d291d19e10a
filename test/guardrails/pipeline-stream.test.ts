// Guardrails on streamed answers and webhook checks in the proxy: an output block ends the stream
// with the family's error record after the text before the match; a hook's allow, block and mask
// answers; a hook that does not answer in time counts as its on_error.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type ProxyEnv, scripted, startProxyEnv } from '../helpers/proxy-env.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import {
  ask,
  type Family,
  guardedProject,
  type Json,
  lastUpstreamBody,
  logRow,
  MODELS,
  openai,
  rawStream,
  streamedText,
  upstreamChatCount,
} from './pipeline-env.ts';

const FAMILIES: Family[] = ['alpha', 'beta'];
const OUTPUT_BLOCK = { type: 'regex', stage: 'output', action: 'block', patterns: ['\\bzeus\\b'], max_match: 10 };

describe('guardrails on streams and webhook checks', () => {
  let env: ProxyEnv;
  let hook: Receiver;
  before(async () => {
    env = await startProxyEnv();
    // The hook answers by what the prompt asks of it.
    hook = await startReceiver((req) => {
      const text = String((JSON.parse(req.body) as Json).text);
      if (text.includes('please wait')) return { status: 200, body: '{"action":"allow"}', delayMs: 1500 };
      if (text.includes('please block')) return { status: 200, body: '{"action":"block","reason":"not today"}' };
      if (text.includes('please mask'))
        return { status: 200, body: '{"action":"mask","replacement":"what the hook wrote"}' };
      return { status: 200, body: '{"action":"allow"}' };
    });
  });
  after(async () => {
    await env?.close();
    await hook?.close();
  });

  for (const family of FAMILIES) {
    test(`${family}: an output block ends the stream with the error record after the text before the match`, async () => {
      const p = await guardedProject(env, [{ name: 'no gods', checks: [OUTPUT_BLOCK] }]);
      const model = scripted(MODELS[family], 'chunks-16');
      const r = await rawStream(env, p.key, family, 'Say hello to zeus and his friends', model);
      assert.equal(r.status, 200);
      assert.equal(streamedText(r.text), 'Echo: Say hello to ');
      assert.match(r.text, /guardrail_blocked|Blocked by guardrail policy 'no gods', check 0 regex/);
      assert.ok(!r.text.includes('zeus'), 'the matched text never leaves');
      const requestId = r.headers.get('x-request-id');
      assert.ok(requestId);
      const row = await logRow(env, requestId);
      assert.equal(row.status_code, 400, JSON.stringify(row));
    });

    test(`${family}: a stream without a match passes whole`, async () => {
      const p = await guardedProject(env, [{ checks: [OUTPUT_BLOCK] }]);
      const model = scripted(MODELS[family], 'chunks-16');
      const r = await rawStream(env, p.key, family, 'Say hello to Hera and her friends', model);
      assert.equal(streamedText(r.text), 'Echo: Say hello to Hera and her friends');
      assert.ok(!r.text.includes('guardrail'), r.text);
    });
  }

  test('the openai SDK reads the stream refusal as an error', async () => {
    const p = await guardedProject(env, [{ checks: [OUTPUT_BLOCK] }]);
    const stream = await openai(env, p.key).chat.completions.create({
      model: scripted(MODELS.alpha, 'chunks-8'),
      stream: true,
      messages: [{ role: 'user', content: 'Say hello to zeus' }],
    });
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
      (e: unknown) => e instanceof OpenAI.APIError && /guardrail/.test(e.message),
    );
    assert.equal(text, 'Echo: Say hello to ');
  });

  test('a webhook check: allow passes, block refuses, mask replaces the prompt', async () => {
    const check = { type: 'webhook', stage: 'input', action: 'block', url: hook.url, timeout_ms: 5000 };
    const p = await guardedProject(env, [{ name: 'hooked', checks: [check] }]);
    for (const family of FAMILIES) {
      for (const stream of [false, true]) {
        assert.equal((await ask(env, p.key, family, 'hello there', stream)).text, 'Echo: hello there');
        const calls = upstreamChatCount(env);
        await assert.rejects(ask(env, p.key, family, 'please block this', stream), (e: unknown) => {
          const err = e as { status?: number; message: string };
          assert.equal(err.status, 400);
          assert.match(err.message, /guardrail policy 'hooked', check 0 webhook: not today/);
          return true;
        });
        assert.equal(upstreamChatCount(env), calls);
      }
    }
    // A hook's mask is applied only by a check whose own action allows more than a flag.
    const masking = await guardedProject(env, [{ checks: [{ ...check, action: 'mask' }] }]);
    const a = await ask(env, masking.key, 'alpha', 'please mask my secret plan', false);
    assert.equal(a.text, 'Echo: what the hook wrote');
    assert.ok(!lastUpstreamBody(env).includes('secret plan'));
    assert.ok(a.requestId);
    const row = JSON.stringify(await logRow(env, a.requestId));
    assert.ok(!row.includes('secret plan'), 'the log keeps what the hook wrote, not what it replaced');
    assert.match(row, /what the hook wrote/);
  });

  test('a hook that answers after timeout_ms: on_error allow passes, block refuses', async () => {
    const slow = { type: 'webhook', stage: 'input', action: 'block', url: hook.url, timeout_ms: 200 };
    const open = await guardedProject(env, [{ checks: [{ ...slow, on_error: 'allow' }] }]);
    const closed = await guardedProject(env, [{ name: 'strict', checks: [{ ...slow, on_error: 'block' }] }]);
    for (const family of FAMILIES) {
      const a = await ask(env, open.key, family, 'please wait for me', false);
      assert.equal(a.text, 'Echo: please wait for me');
      assert.match(a.guardrails ?? '', /input:guardrail_[0-9a-z]+:webhook:flag/);
      await assert.rejects(ask(env, closed.key, family, 'please wait for me', false), (e: unknown) => {
        const err = e as { status?: number; message: string };
        assert.equal(err.status, 400);
        assert.match(
          err.message,
          /'strict', check 0 webhook: webhook failed \(no answer from the hook within 200 ms\)/,
        );
        return true;
      });
    }
  });

  test('an output webhook sees a stream once, at its end, and its block ends the stream', async () => {
    const check = { type: 'webhook', stage: 'output', action: 'block', url: hook.url, timeout_ms: 5000 };
    const p = await guardedProject(env, [{ checks: [check] }]);
    const before = hook.received.length;
    const ok = await rawStream(env, p.key, 'beta', 'hello there', scripted(MODELS.beta, 'chunks-8'));
    assert.equal(streamedText(ok.text), 'Echo: hello there');
    assert.match(ok.text, /message_stop/);
    assert.equal(hook.received.length, before + 1, 'one hook call per answer');
    const refused = await rawStream(env, p.key, 'beta', 'please block me', scripted(MODELS.beta, 'chunks-8'));
    assert.equal(streamedText(refused.text), 'Echo: please block me');
    assert.match(refused.text, /event: error/);
    assert.ok(!refused.text.includes('message_stop'), refused.text);
  });
});
