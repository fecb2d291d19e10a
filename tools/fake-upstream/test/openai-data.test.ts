// Embeddings, models, files, batches, images and audio through the official `openai` SDK.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { countTokens } from '../script.ts';
import { type FakeUpstream, openaiClient, pollUntil, raw, startTestFake } from './helpers.ts';

let fake: FakeUpstream;
let client: OpenAI;

before(async () => {
  fake = await startTestFake({ batchStepMs: 25 });
  client = openaiClient(fake);
});
after(() => fake.close());

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('embeddings', () => {
  test('the SDK default (base64 on the wire) decodes to the native size, deterministically', async () => {
    fake.clearRequests();
    const a = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['cat', 'dog'] });
    assert.equal((fake.requests()[0].body as { encoding_format: string }).encoding_format, 'base64');
    assert.equal(a.data.length, 2);
    assert.equal(a.data[0].embedding.length, 1536);
    assert.ok(Math.abs(norm(a.data[0].embedding) - 1) < 1e-3);
    assert.equal(a.usage.prompt_tokens, countTokens('cat') + countTokens('dog'));
    const b = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'cat' });
    assert.deepEqual(b.data[0].embedding, a.data[0].embedding);
  });

  test('encoding_format float returns numbers; dimensions honoured by text-embedding-3-* only', async () => {
    const f = await client.embeddings.create({
      model: 'text-embedding-3-large',
      input: 'x',
      dimensions: 256,
      encoding_format: 'float',
    });
    assert.equal(f.data[0].embedding.length, 256);
    assert.ok(Math.abs(norm(f.data[0].embedding) - 1) < 1e-3, 'shortened vectors are re-normalised');
    const ada = await client.embeddings.create({ model: 'text-embedding-ada-002', input: 'x' });
    assert.equal(ada.data[0].embedding.length, 1536);
    await assert.rejects(
      client.embeddings.create({ model: 'text-embedding-ada-002', input: 'x', dimensions: 64 }),
      OpenAI.BadRequestError,
    );
  });

  test('raw base64 is little-endian float32; dims-<n> forces the size; together/fireworks fixed sizes', async () => {
    const r = await raw(fake, 'POST', '/openai/v1/embeddings', {
      model: 'emb-dims-8',
      input: 'x',
      encoding_format: 'base64',
    });
    const b64 = (r.json as { data: Array<{ embedding: string }> }).data[0].embedding;
    assert.equal(Buffer.from(b64, 'base64').length, 8 * 4);
    const t = await openaiClient(fake, '/together/v1').embeddings.create({
      model: 'BAAI/bge-large-en-v1.5',
      input: 'x',
    });
    assert.equal(t.data[0].embedding.length, 1024);
    const fw = await openaiClient(fake, '/fireworks/inference/v1').embeddings.create({
      model: 'nomic-ai/nomic-embed-text-v1.5',
      input: 'x',
    });
    assert.equal(fw.data[0].embedding.length, 768);
  });
});

describe('models', () => {
  test('list and retrieve (ids with slashes too)', async () => {
    const list = await client.models.list();
    assert.ok(list.data.some((m) => m.id === 'gpt-4o'));
    const m = await openaiClient(fake, '/together/v1').models.retrieve('meta-llama/Llama-3.3-70B-Instruct-Turbo');
    assert.equal(m.id, 'meta-llama/Llama-3.3-70B-Instruct-Turbo');
  });
});

describe('files', () => {
  test('upload (multipart), list, get, content, delete', async () => {
    const f = await client.files.create({
      file: await toFile(Buffer.from('hello file'), 'notes.txt'),
      purpose: 'user_data',
    });
    assert.match(f.id, /^file-/);
    assert.equal(f.bytes, 10);
    assert.equal(f.filename, 'notes.txt');
    const page = await client.files.list({ purpose: 'user_data' });
    assert.ok(page.data.some((x) => x.id === f.id));
    assert.equal((await client.files.retrieve(f.id)).id, f.id);
    assert.equal(await (await client.files.content(f.id)).text(), 'hello file');
    const del = await client.files.delete(f.id);
    assert.deepEqual(del, { id: f.id, object: 'file', deleted: true });
    await assert.rejects(client.files.retrieve(f.id), OpenAI.NotFoundError);
  });

  test('list pagination follows `after` until has_more is false', async () => {
    for (let i = 0; i < 3; i++)
      await client.files.create({ file: await toFile(Buffer.from(`${i}`), `p${i}.txt`), purpose: 'evals' });
    const ids: string[] = [];
    for await (const f of client.files.list({ purpose: 'evals', limit: 2 })) ids.push(f.id);
    assert.equal(ids.length, 3);
    assert.equal(new Set(ids).size, 3);
  });
});

describe('batches', () => {
  const line = (id: string, model: string, text: string) =>
    JSON.stringify({
      custom_id: id,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model, messages: [{ role: 'user', content: text }] },
    });

  test('validating -> in_progress -> finalizing -> completed, with output and error files', async () => {
    const input = [line('a', 'gpt-4o', 'one'), line('b', 'gpt-4o', 'two'), line('c', 'gpt-fail-400', 'three')].join(
      '\n',
    );
    const file = await client.files.create({ file: await toFile(Buffer.from(input), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    assert.equal(batch.status, 'validating');
    const seen = new Set<string>([batch.status]);
    const done = await pollUntil(
      async () => {
        const b = await client.batches.retrieve(batch.id);
        seen.add(b.status);
        return b;
      },
      (b) => b.status === 'completed',
    );
    assert.ok(seen.has('in_progress') || seen.has('finalizing'), [...seen].join(','));
    assert.deepEqual(done.request_counts, { total: 3, completed: 2, failed: 1 });
    assert.ok(done.in_progress_at && done.finalizing_at && done.completed_at);
    const out = (await (await client.files.content(done.output_file_id ?? '')).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      out.map((o) => [o.custom_id, o.response.status_code, o.response.body.choices[0].message.content]),
      [
        ['a', 200, 'Echo: one'],
        ['b', 200, 'Echo: two'],
      ],
    );
    const errs = (await (await client.files.content(done.error_file_id ?? '')).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(errs[0].custom_id, 'c');
    assert.equal(errs[0].response.status_code, 400);
    assert.ok(errs[0].response.body.error.message);
    const list = await client.batches.list();
    assert.ok(list.data.some((b) => b.id === batch.id));
  });

  test('embeddings batch and a malformed input file (failed with errors)', async () => {
    const emb = JSON.stringify({
      custom_id: 'e',
      method: 'POST',
      url: '/v1/embeddings',
      body: { model: 'text-embedding-3-small', input: 'x', dimensions: 4 },
    });
    const file = await client.files.create({ file: await toFile(Buffer.from(emb), 'e.jsonl'), purpose: 'batch' });
    const b = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/embeddings',
      completion_window: '24h',
    });
    const done = await pollUntil(
      () => client.batches.retrieve(b.id),
      (x) => x.status === 'completed',
    );
    const out = JSON.parse(await (await client.files.content(done.output_file_id ?? '')).text());
    assert.equal(out.response.body.data[0].embedding.length, 4);

    const bad = await client.files.create({
      file: await toFile(Buffer.from(`${line('x', 'm', 'a')}\nnot json\n${line('x', 'm', 'b')}`), 'bad.jsonl'),
      purpose: 'batch',
    });
    const fb = await client.batches.create({
      input_file_id: bad.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const failed = await pollUntil(
      () => client.batches.retrieve(fb.id),
      (x) => x.status === 'failed',
    );
    assert.deepEqual(
      failed.errors?.data?.map((e) => [e.code, e.line]),
      [
        ['invalid_json_line', 2],
        ['duplicate_custom_id', 3],
      ],
    );
  });

  test('cancel: cancelling, then cancelled', async () => {
    const file = await client.files.create({
      file: await toFile(Buffer.from(line('a', 'gpt-4o', 'x')), 'c.jsonl'),
      purpose: 'batch',
    });
    const b = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const c = await client.batches.cancel(b.id);
    assert.equal(c.status, 'cancelling');
    const done = await pollUntil(
      () => client.batches.retrieve(b.id),
      (x) => x.status === 'cancelled',
    );
    assert.ok(done.cancelled_at);
    assert.equal(done.output_file_id, null);
  });
});

describe('images and audio', () => {
  test('images: url for dall-e (served by the fake), b64_json for gpt-image', async () => {
    const u = await client.images.generate({ model: 'dall-e-3', prompt: 'a red square' });
    const url = u.data?.[0].url ?? '';
    assert.ok(url.startsWith(fake.url));
    assert.equal((await fetch(url)).headers.get('content-type'), 'image/png');
    const b = await client.images.generate({ model: 'gpt-image-1', prompt: 'a red square', n: 2 });
    assert.equal(b.data?.length, 2);
    assert.equal(
      Buffer.from(b.data?.[0].b64_json ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
      'PNG',
    );
  });

  test('speech returns audio/mpeg bytes derived from the input', async () => {
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello world' });
    assert.equal(res.headers.get('content-type'), 'audio/mpeg');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.subarray(0, 3).toString(), 'ID3');
    const again = Buffer.from(
      await (await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello world' })).arrayBuffer(),
    );
    assert.ok(bytes.equals(again));
  });

  test('transcriptions (multipart): json and text formats', async () => {
    const file = await toFile(Buffer.from('the spoken words'), 'speech.mp3');
    const t = await client.audio.transcriptions.create({ model: 'whisper-1', file });
    assert.equal(t.text, 'the spoken words');
    const text = await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(Buffer.from([0xff, 0xfb, 0x90, 0x00]), 'a.mp3'),
      response_format: 'text',
    });
    assert.equal(String(text).trim(), '[audio of 4 bytes]');
  });
});
