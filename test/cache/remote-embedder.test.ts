// An embedding model as the cache's embedder: the prompt is embedded through the gateway's own
// embeddings pipeline, logged as a sub-call (trace id = the chat call's request id), and its vectors
// serve the semantic tier. The fake upstream's vectors are a hash of the text, so a semantic hit here
// needs the same prompt text under a different exact key: the same words as one block or two.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { answerText, cachedProject, chat, type Json, logRow } from './helpers.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

const MODEL = 'openai/gpt-4o-mini';

test('a vendor embedding model embeds prompts as logged sub-calls and serves semantic hits', async () => {
  const p = await cachedProject(env, 'remote-embedder', {
    embedder: 'openai/text-embedding-3-small',
    similarity_threshold: 0.99,
  });
  const oneBlock = { model: MODEL, messages: [{ role: 'user', content: 'Name three primes\nunder ten' }] };
  const first = await chat(env, p.key, 'alpha', oneBlock);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('x-svc-cache'), 'MISS');
  const chatId = first.headers.get('x-svc-request-id');
  await logRow(env, chatId);

  // The embedding sub-call is in the log, tied to the chat call.
  const deadline = Date.now() + 5000;
  let subCalls: Json[] = [];
  while (subCalls.length === 0 && Date.now() < deadline) {
    const r = await api(env.gw, 'GET', `/manage/v1/logs?trace_id=${chatId}`);
    subCalls = ((r.json as Json).data as Json[]).filter((row) => row.request_type === 'embedding');
    if (subCalls.length === 0) await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(subCalls.length, 1);
  assert.equal(subCalls[0].model_requested, 'openai/text-embedding-3-small');
  assert.equal(subCalls[0].status_code, 200);

  const twoBlocks = {
    model: MODEL,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Name three primes' },
          { type: 'text', text: 'under ten' },
        ],
      },
    ],
  };
  const hit = await chat(env, p.key, 'alpha', twoBlocks);
  assert.equal(hit.headers.get('x-svc-cache'), 'HIT', hit.text);
  assert.ok(Number(hit.headers.get('x-svc-cache-similarity')) >= 0.99);
  assert.equal(answerText(hit), answerText(first));
  const row = await logRow(env, hit.headers.get('x-svc-request-id'));
  assert.equal(row.cache, 'hit');
  assert.ok((row.cache_similarity as number) >= 0.99, JSON.stringify(row));

  const other = await chat(env, p.key, 'alpha', {
    model: MODEL,
    messages: [{ role: 'user', content: 'Name three even numbers' }],
  });
  assert.equal(other.headers.get('x-svc-cache'), 'MISS');
});

test('an embedder that fails leaves the exact tier working and the call answered', async () => {
  const p = await cachedProject(env, 'broken-embedder', { embedder: 'openai/text-embedding-3-small-fail-500' });
  const body = { model: MODEL, messages: [{ role: 'user', content: 'Is the sky blue?' }] };
  const first = await chat(env, p.key, 'alpha', body);
  assert.equal(first.status, 200, first.text);
  const again = await chat(env, p.key, 'beta', body);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.headers.get('x-svc-cache'), 'HIT');
  assert.equal(again.headers.get('x-svc-cache-similarity'), '1.0');
});

test('an embeddings routing config (@slug) as the embedder: its sub-call goes through the config', async () => {
  const cfg = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
    name: 'cache-emb',
    strategy: 'fallback',
    config: { models: ['openai/text-embedding-3-small-fail-500', 'openai/text-embedding-3-small'] },
  });
  assert.equal(cfg.status, 201, JSON.stringify(cfg.json));
  const slug = (cfg.json as Json).slug as string;
  const p = await cachedProject(env, 'slug-embedder', { embedder: `@${slug}`, similarity_threshold: 0.99 });
  const first = await chat(env, p.key, 'alpha', {
    model: MODEL,
    messages: [{ role: 'user', content: 'List two colours\nof the sky' }],
  });
  assert.equal(first.status, 200, first.text);
  const chatId = first.headers.get('x-svc-request-id');
  await logRow(env, chatId);
  const r = await api(env.gw, 'GET', `/manage/v1/logs?trace_id=${chatId}`);
  const sub = ((r.json as Json).data as Json[]).find((row) => row.request_type === 'embedding');
  assert.ok(sub, JSON.stringify(r.json));
  assert.equal(sub.model_requested, `@${slug}`);
  assert.equal(sub.status_code, 200, 'the config fell back past the failing model');

  const hit = await chat(env, p.key, 'beta', {
    model: MODEL,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'List two colours' },
          { type: 'text', text: 'of the sky' },
        ],
      },
    ],
  });
  assert.equal(hit.headers.get('x-svc-cache'), 'HIT', hit.text);
  assert.equal(answerText(hit), answerText(first));
});
