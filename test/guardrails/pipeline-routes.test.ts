// Guardrails on the inference routes that are not chat: embeddings input is masked before it leaves
// (through the openai SDK); the pass-through endpoints (images, Responses) are refused by a block
// and, since their body goes upstream as written, by a mask they cannot apply.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { EMAIL, guardedProject, type Json, openai } from './pipeline-env.ts';

const MASK = { type: 'pii', stage: 'input', action: 'mask', entities: ['email'] };
const BLOCK = { type: 'keywords', stage: 'input', action: 'block', words: ['forbidden'] };

describe('guardrails on embeddings, images and Responses', () => {
  let env: ProxyEnv;
  before(async () => {
    env = await startProxyEnv();
  });
  after(async () => {
    await env?.close();
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
    return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
  };

  test('an image prompt: a block refuses, a mask it cannot apply refuses, a clean prompt passes', async () => {
    const p = await guardedProject(env, [{ checks: [MASK, BLOCK] }]);
    const before = upstreamBodies('/images/generations').length;
    const blocked = await post(p.key, '/alpha/v1/images/generations', {
      model: 'openai/dall-e-3',
      prompt: 'a forbidden painting',
    });
    assert.equal(blocked.status, 400, JSON.stringify(blocked.body));
    assert.equal(blocked.body.error?.code, 'guardrail_blocked');
    const masked = await post(p.key, '/alpha/v1/images/generations', {
      model: 'openai/dall-e-3',
      prompt: `a portrait of ${EMAIL}`,
    });
    assert.equal(masked.status, 400, JSON.stringify(masked.body));
    assert.match(masked.body.error?.message ?? '', /cannot be masked/);
    assert.equal(upstreamBodies('/images/generations').length, before, 'nothing left the gateway');
    const ok = await post(p.key, '/alpha/v1/images/generations', { model: 'openai/dall-e-3', prompt: 'a lighthouse' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('a Responses input: a block refuses before the upstream', async () => {
    const p = await guardedProject(env, [{ checks: [BLOCK] }]);
    const before = upstreamBodies('/responses').length;
    const r = await post(p.key, '/alpha/v1/responses', { model: 'openai/gpt-4o-mini', input: 'say forbidden things' });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error?.code, 'guardrail_blocked');
    assert.equal(upstreamBodies('/responses').length, before);
  });
});
