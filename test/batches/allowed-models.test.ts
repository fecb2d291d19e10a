// A key's allowed_models applies to batches at creation (issue 33): a batch naming a model the key
// may not call is refused whole, 403 model_not_allowed, through both SDKs; nothing is stored and
// nothing goes upstream. A batch of allowed models is accepted as before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { batchLine, clients, type Json, uploadLines } from './helpers.ts';

let env: ProxyEnv;
let key: string;
before(async () => {
  env = await startProxyEnv();
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: 'only 4o', allowed_models: ['gpt-4o*'] });
  assert.equal(k.status, 201, JSON.stringify(k.json));
  key = (k.json as Json).key as string;
});
after(async () => {
  await env.close();
});

const chat = (model: string) => ({ model, max_tokens: 5, messages: [{ role: 'user' as const, content: 'hi' }] });

async function batchCount(): Promise<number> {
  const r = await api(env.gw, 'GET', '/alpha/v1/batches?limit=100');
  const b = await api(env.gw, 'GET', '/beta/v1/messages/batches?limit=100');
  return ((r.json as Json).data as unknown[]).length + ((b.json as Json).data as unknown[]).length;
}

describe('allowed_models at batch creation', () => {
  test('beta: one request for another model refuses the whole batch', async () => {
    const { anthropic } = clients(env, key);
    const before = await batchCount();
    const err = await anthropic.messages.batches
      .create({
        requests: [
          { custom_id: 'ok', params: chat(VENDOR_MODELS.openai as string) },
          { custom_id: 'no', params: chat(VENDOR_MODELS.anthropic as string) },
        ],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof Anthropic.APIError, String(err));
    assert.equal(err.status, 403);
    const body = err.error as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'permission_error');
    assert.match(body.error.message, /claude-3-5-haiku-latest/);
    assert.equal(await batchCount(), before, 'nothing was stored');
    const ok = await anthropic.messages.batches.create({
      requests: [{ custom_id: 'ok', params: chat(VENDOR_MODELS.openai as string) }],
    });
    assert.equal(ok.processing_status, 'in_progress');
  });

  for (const [where, provider, allowed, refused] of [
    ['a gateway-held file', 'switchyard', VENDOR_MODELS.openai, VENDOR_MODELS.anthropic],
    ['a file at the vendor', null, 'gpt-4o-mini', 'gpt-3.5-turbo'],
  ] as const) {
    test(`alpha, ${where}: a line for another model refuses the batch`, async () => {
      const { openai } = clients(env, key);
      const refusedFile = await uploadLines(
        env,
        key,
        [batchLine('a', chat(allowed as string)), batchLine('b', chat(refused as string))],
        provider,
      );
      env.fake.clearRequests();
      const err = await openai.batches
        .create({ input_file_id: refusedFile.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assert.equal(err.status, 403);
      assert.equal(err.code, 'model_not_allowed');
      assert.equal(err.param, 'input_file_id');
      assert.match(err.message, new RegExp(String(refused).replace(/[.]/g, '\\.')));
      assert.ok(
        env.fake.requests().every((r) => !r.path.includes('/batches')),
        'no batch was created upstream',
      );
      const okFile = await uploadLines(env, key, [batchLine('a', chat(allowed as string))], provider);
      const ok = await openai.batches.create({
        input_file_id: okFile.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      assert.ok(ok.id.length > 0);
    });
  }
});
