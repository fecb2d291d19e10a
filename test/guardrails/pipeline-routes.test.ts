// Guardrails on the inference routes that are not chat: embeddings input is masked before it leaves
// (through the openai SDK); the pass-through endpoints (images, speech, Responses) are refused by a
// block and go upstream with each masked value replaced in their body; with `restore: true` the
// Responses answer (whole or streamed) and an image's revised prompt get the originals back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { EMAIL, guardedProject, type Json, logRow, openai } from './pipeline-env.ts';

const MASK = { type: 'pii', stage: 'input', action: 'mask', entities: ['email'] };
const RESTORE = { ...MASK, restore: true };
const BLOCK = { type: 'keywords', stage: 'input', action: 'block', words: ['forbidden'] };

describe('guardrails on embeddings, images and Responses', () => {
  let env: ProxyEnv;
  let hook: Receiver;
  before(async () => {
    env = await startProxyEnv();
    hook = await startReceiver(() => ({ status: 200, body: '{"action":"mask","replacement":"what the hook wrote"}' }));
  });
  after(async () => {
    await env?.close();
    await hook?.close();
  });

  const upstreamBodies = (fragment: string): string[] =>
    env.fake
      .requests()
      .filter((r) => r.path.endsWith(fragment))
      .map((r) => JSON.stringify(r.body));

  test('embeddings input reaches the upstream masked; a block refuses it', async () => {
    const p = await guardedProject(env, [{ checks: [MASK, BLOCK] }]);
    const client = openai(env, p.key);
    const { data, response } = await client.embeddings
      .create({ model: 'openai/text-embedding-3-small', input: [`write to ${EMAIL}`, 'nothing here'] })
      .withResponse();
    assert.equal(data.data.length, 2);
    assert.match(response.headers.get('x-svc-guardrails') ?? '', /input:guardrail_[0-9a-z]+:pii:mask;email=1/);
    const sent = upstreamBodies('/embeddings').at(-1) ?? '';
    assert.match(sent, /write to \[EMAIL_1\]/);
    assert.ok(!sent.includes(EMAIL));
    await assert.rejects(
      client.embeddings.create({ model: 'openai/text-embedding-3-small', input: 'a forbidden word' }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.code === 'guardrail_blocked',
    );
  });

  const post = async (key: string, path: string, body: Json) => {
    const res = await fetch(`${env.gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    // Errors and JSON answers are read; speech answers with audio bytes.
    const json = text.startsWith('{') ? (JSON.parse(text) as Json) : {};
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      requestId: res.headers.get('x-request-id'),
      text,
      body: json as ErrorBody & Json,
    };
  };

  /** The log row of a call, as text: it must hold placeholders, never what they replaced. */
  const maskedRow = async (requestId: string | null): Promise<string> => {
    assert.ok(requestId);
    const row = JSON.stringify(await logRow(env, requestId));
    assert.ok(!row.includes(EMAIL), row);
    assert.match(row, /\[EMAIL_1\]/);
    return row;
  };

  test('an image prompt: a block refuses, a mask reaches the upstream as a placeholder, restored in the answer', async () => {
    const p = await guardedProject(env, [{ checks: [RESTORE, BLOCK] }]);
    const before = upstreamBodies('/images/generations').length;
    const blocked = await post(p.key, '/alpha/v1/images/generations', {
      model: 'openai/dall-e-3',
      prompt: 'a forbidden painting',
    });
    assert.equal(blocked.status, 400, blocked.text);
    assert.equal(blocked.body.error?.code, 'guardrail_blocked');
    assert.equal(upstreamBodies('/images/generations').length, before, 'nothing left the gateway');
    const masked = await post(p.key, '/alpha/v1/images/generations', {
      model: 'openai/dall-e-3',
      prompt: `a portrait of ${EMAIL}`,
      user: EMAIL,
    });
    assert.equal(masked.status, 200, masked.text);
    const sent = upstreamBodies('/images/generations').at(-1) ?? '';
    assert.match(sent, /"prompt":"a portrait of \[EMAIL_1\]"/);
    assert.match(sent, /"user":"\[EMAIL_1\]"/, 'the value is masked wherever the body holds it');
    assert.ok(!sent.includes(EMAIL), sent);
    // The fake revises the prompt as it received it; the caller reads the original back.
    const data = masked.body.data as Json[];
    assert.equal(data[0]?.revised_prompt, `Revised: a portrait of ${EMAIL}`);
    await maskedRow(masked.requestId);
  });

  test('a speech input reaches the upstream masked', async () => {
    const p = await guardedProject(env, [{ checks: [MASK] }]);
    const r = await post(p.key, '/alpha/v1/audio/speech', {
      model: 'openai/tts-1',
      voice: 'alloy',
      input: `Read ${EMAIL} aloud`,
    });
    assert.equal(r.status, 200, r.text);
    const sent = upstreamBodies('/audio/speech').at(-1) ?? '';
    assert.match(sent, /Read \[EMAIL_1\] aloud/);
    assert.ok(!sent.includes(EMAIL), sent);
    await maskedRow(r.requestId);
  });

  test('a webhook mask, which replaces a whole text, refuses a pass-through call', async () => {
    const check = { type: 'webhook', stage: 'input', action: 'mask', url: hook.url, timeout_ms: 5000 };
    const p = await guardedProject(env, [{ checks: [check] }]);
    const before = upstreamBodies('/images/generations').length;
    const r = await post(p.key, '/alpha/v1/images/generations', { model: 'openai/dall-e-3', prompt: 'a lighthouse' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error?.code, 'guardrail_blocked');
    assert.equal(upstreamBodies('/images/generations').length, before);
  });

  test('a Responses input: a block refuses before the upstream', async () => {
    const p = await guardedProject(env, [{ checks: [BLOCK] }]);
    const before = upstreamBodies('/responses').length;
    const r = await post(p.key, '/alpha/v1/responses', { model: 'openai/gpt-4o-mini', input: 'say forbidden things' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.error?.code, 'guardrail_blocked');
    assert.match(r.type ?? '', /^application\/json/, 'the refusal is JSON in its content type too');
    assert.equal(upstreamBodies('/responses').length, before);
  });

  const PROMPT = `Write to ${EMAIL} today`;

  test('Responses: the upstream sees the placeholder, the caller the original, the log the placeholder', async () => {
    const p = await guardedProject(env, [{ checks: [RESTORE] }]);
    const { data, response } = await openai(env, p.key)
      .responses.create({ model: 'openai/gpt-4o-mini', input: PROMPT })
      .withResponse();
    const sent = upstreamBodies('/responses').at(-1) ?? '';
    assert.match(sent, /"input":"Write to \[EMAIL_1\] today"/);
    assert.ok(!sent.includes(EMAIL), sent);
    // The fake echoes the input.
    assert.equal(data.output_text, `Echo: ${PROMPT}`);
    assert.match(response.headers.get('x-svc-guardrails') ?? '', /input:guardrail_[0-9a-z]+:pii:mask;email=1/);
    const row = await maskedRow(response.headers.get('x-request-id'));
    assert.match(row, /Echo: Write to \[EMAIL_1\] today/, 'the answer is kept as the upstream wrote it');
  });

  test('Responses with input items: masked upstream, restored answer', async () => {
    const p = await guardedProject(env, [{ checks: [RESTORE] }]);
    const data = await openai(env, p.key).responses.create({
      model: 'openai/gpt-4o-mini',
      input: [{ role: 'user', content: [{ type: 'input_text', text: PROMPT }] }],
    });
    const sent = upstreamBodies('/responses').at(-1) ?? '';
    assert.match(sent, /"text":"Write to \[EMAIL_1\] today"/);
    assert.ok(!sent.includes(EMAIL), sent);
    assert.equal(data.output_text, `Echo: ${PROMPT}`);
  });

  test('Responses without restore: the caller reads the placeholder', async () => {
    const p = await guardedProject(env, [{ checks: [MASK] }]);
    const data = await openai(env, p.key).responses.create({ model: 'openai/gpt-4o-mini', input: PROMPT });
    assert.equal(data.output_text, 'Echo: Write to [EMAIL_1] today');
  });

  test('a Responses stream: the placeholder split across deltas is restored in every event', async () => {
    const p = await guardedProject(env, [{ checks: [RESTORE] }]);
    const { data, response } = await openai(env, p.key)
      .responses.create({ model: 'openai/gpt-4o-mini', input: PROMPT, stream: true })
      .withResponse();
    let deltas = '';
    let done = '';
    let completed = '';
    for await (const ev of data) {
      if (ev.type === 'response.output_text.delta') deltas += ev.delta;
      if (ev.type === 'response.output_text.done') done = ev.text;
      if (ev.type === 'response.completed') completed = outputText(ev.response.output);
    }
    const sent = upstreamBodies('/responses').at(-1) ?? '';
    assert.match(sent, /Write to \[EMAIL_1\] today/);
    assert.ok(!sent.includes(EMAIL), sent);
    assert.equal(deltas, `Echo: ${PROMPT}`);
    assert.equal(done, `Echo: ${PROMPT}`);
    assert.equal(completed, `Echo: ${PROMPT}`);
    await maskedRow(response.headers.get('x-request-id'));
  });
});

/** The text of a response's message items (a streamed response object has no `output_text`). */
function outputText(output: OpenAI.Responses.ResponseOutputItem[]): string {
  return output
    .flatMap((o) => (o.type === 'message' ? o.content : []))
    .map((c) => (c.type === 'output_text' ? c.text : ''))
    .join('');
}

interface ErrorBody {
  error?: { code: string; message: string };
}
