// Images and audio through the official openai SDK: images.generate (openai, azure, together),
// audio.speech.create (bytes streamed with the upstream's content type, written to a file),
// transcriptions and translations with a file. Each call leaves a log row with its request_type and
// catalog cost; limits apply (a budget refuses); bad input is a 4xx in the alpha shape.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { form, logRow, raw } from '../files/helpers.ts';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

describe('images and audio', () => {
  let env: ProxyEnv;
  let dir: string;
  const sdk = (base = '/alpha/v1') =>
    new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}${base}`, maxRetries: 0 });
  before(async () => {
    env = await startProxyEnv();
    dir = mkdtempSync(join(tmpdir(), 'sy-media-'));
  });
  after(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('images.generate: priced per image from the catalog, logged as image_generation', async () => {
    const { data, response } = await sdk()
      .images.generate({ model: 'openai/dall-e-3', prompt: 'a lighthouse', size: '1792x1024', quality: 'hd' })
      .withResponse();
    assert.equal(data.data?.length, 1);
    assert.ok(data.data?.[0].url?.startsWith('http'));
    assert.equal(response.headers.get('x-svc-cost-usd'), '0.12');
    const row = await logRow(env.gw, response.headers.get('x-svc-request-id'));
    assert.deepEqual([row.request_type, row.status_code, row.provider], ['image_generation', 200, 'openai']);
    assert.equal(Number(row.cost_usd), 0.12);

    const b64 = await sdk('/v1').images.generate({ model: 'dall-e-2', prompt: 'x', n: 2, response_format: 'b64_json' });
    assert.equal(b64.data?.length, 2);
    assert.ok(b64.data?.every((i) => (i.b64_json ?? '').length > 0));
  });

  test('images on azure (deployment path) and together (per megapixel)', async () => {
    const az = await sdk().images.generate({ model: 'azure-openai/dall-e-3', prompt: 'p' }).withResponse();
    assert.equal(az.response.headers.get('x-svc-provider'), 'azure-openai');
    assert.equal(az.response.headers.get('x-svc-cost-usd'), '0.04');
    const tg = await sdk()
      .images.generate({ model: 'together/black-forest-labs/FLUX.1-schnell', prompt: 'p', size: '1024x1024' })
      .withResponse();
    assert.equal(tg.response.headers.get('x-svc-provider'), 'together');
    assert.ok(Math.abs(Number(tg.response.headers.get('x-svc-cost-usd')) - 0.0028311552) < 1e-9);
  });

  test('speech: audio bytes stream back with the upstream content type; cost per character', async () => {
    const input = 'The quick brown fox jumps over the lazy dog.';
    const res = await sdk().audio.speech.create({
      model: 'openai/tts-1',
      voice: 'alloy',
      input,
      response_format: 'opus',
    });
    assert.equal(res.headers.get('content-type'), 'audio/opus');
    const file = join(dir, 'speech.opus');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const bytes = readFileSync(file);
    assert.equal(bytes.subarray(0, 3).toString('latin1'), 'ID3');
    assert.ok(bytes.length > 10);
    const cost = Number(res.headers.get('x-svc-cost-usd'));
    assert.ok(Math.abs(cost - (input.length * 15) / 1e6) < 1e-9);
    const row = await logRow(env.gw, res.headers.get('x-svc-request-id'));
    assert.equal(row.request_type, 'audio_speech');
    assert.equal(Number(row.cost_usd), cost);
    const mp3 = await sdk('/v1').audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hi' });
    assert.equal(mp3.headers.get('content-type'), 'audio/mpeg');
  });

  test('transcriptions and translations forward the form and return the upstream JSON', async () => {
    const file = await toFile(Buffer.from('hello from the audio file'), 'clip.wav', { type: 'audio/wav' });
    const { data, response } = await sdk()
      .audio.transcriptions.create({ model: 'openai/whisper-1', file, language: 'en' })
      .withResponse();
    assert.equal(data.text, 'hello from the audio file');
    // usage.seconds = 1 at $0.006 per minute.
    assert.equal(response.headers.get('x-svc-cost-usd'), '0.0001');
    const row = await logRow(env.gw, response.headers.get('x-svc-request-id'));
    assert.equal(row.request_type, 'audio_transcription');
    assert.deepEqual(row.request, {
      model: 'openai/whisper-1',
      language: 'en',
      file: { filename: 'clip.wav', bytes: 25 },
    });
    const verbose = await sdk('/v1').audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(Buffer.from('again'), 'a.wav'),
      response_format: 'verbose_json',
    });
    assert.equal(verbose.text, 'again');
    const tr = await sdk()
      .audio.translations.create({ model: 'openai/whisper-1', file: await toFile(Buffer.from('bonjour'), 'b.wav') })
      .withResponse();
    assert.equal(tr.data.text, 'bonjour');
    assert.equal((await logRow(env.gw, tr.response.headers.get('x-svc-request-id'))).request_type, 'audio_translation');
  });

  test('bad input is a 4xx in the alpha shape: no file, no model, wrong vendor, not multipart', async () => {
    const noFile = await raw(env.gw, 'POST', '/alpha/v1/audio/transcriptions', { body: form({ model: 'whisper-1' }) });
    assert.equal(noFile.status, 400);
    assert.equal((noFile.json?.error as { param: string }).param, 'file');
    const noModel = await raw(env.gw, 'POST', '/alpha/v1/audio/transcriptions', {
      body: form({}, { data: Buffer.from('x'), name: 'a.wav' }),
    });
    assert.equal(noModel.status, 400);
    const json = await raw(env.gw, 'POST', '/alpha/v1/audio/transcriptions', {
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(json.status, 400);
    const wrong = await raw(env.gw, 'POST', '/alpha/v1/images/generations', {
      body: JSON.stringify({ model: 'anthropic/claude-3-5-haiku-latest', prompt: 'p' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(wrong.status, 400);
    assert.match(String((wrong.json?.error as { message: string }).message), /no images API/);
    const upstream = await raw(env.gw, 'POST', '/alpha/v1/images/generations', {
      body: JSON.stringify({ model: 'dall-e-3' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(upstream.status, 400, 'the upstream refusal is passed on');
    assert.equal((upstream.json?.error as { param: string }).param, 'prompt');
  });

  test('a budget applies to these routes: an exhausted one refuses with 402', async () => {
    const p = await raw(env.gw, 'POST', '/manage/v1/projects', {
      body: JSON.stringify({ name: 'media-budget' }),
      headers: { 'content-type': 'application/json' },
    });
    const projectId = p.json?.id as string;
    const k = await raw(env.gw, 'POST', '/manage/v1/api-keys', {
      body: JSON.stringify({ name: 'k', project_id: projectId }),
      headers: { 'content-type': 'application/json' },
    });
    const b = await raw(env.gw, 'POST', '/manage/v1/budgets', {
      body: JSON.stringify({
        name: 'tiny',
        scope: { type: 'project', id: projectId },
        limit_usd: 0.05,
        period: 'monthly',
      }),
      headers: { 'content-type': 'application/json' },
    });
    assert.ok(b.status < 300, b.text);
    const client = new OpenAI({ apiKey: k.json?.key as string, baseURL: `${env.gw.url}/v1`, maxRetries: 0 });
    await client.images.generate({ model: 'dall-e-3', prompt: 'one' });
    await client.images.generate({ model: 'dall-e-3', prompt: 'two' });
    await assert.rejects(
      client.images.generate({ model: 'dall-e-3', prompt: 'three' }),
      (e: unknown) => e instanceof OpenAI.APIError && e.status === 402,
    );
  });
});
