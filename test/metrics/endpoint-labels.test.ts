// /metrics labels every route: files, batches (both families), stored responses, images and audio
// calls count under their family and endpoint, never `family="other",endpoint="other"`. Each call
// is made through the official SDKs against the fake upstream, then one scrape is read.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { endpointOf } from '../../src/metrics/labels.ts';
import { batchLine, pollUntil } from '../batches/helpers.ts';
import { type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { labelSets, parseExposition } from './exposition.ts';

let env: ProxyEnv;
let openai: OpenAI;
let anthropic: Anthropic;

before(async () => {
  env = await startProxyEnv();
  openai = new OpenAI({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: env.gw.adminKey, baseURL: `${env.gw.url}/beta`, maxRetries: 0 });
});
after(async () => {
  await env?.close();
});

async function endpointsSeen(): Promise<Set<string>> {
  const res = await fetch(`${env.gw.url}/metrics`, { headers: { authorization: `Bearer ${env.gw.adminKey}` } });
  assert.equal(res.status, 200);
  const sets = labelSets(await parseExposition(await res.text()), 'switchyard_requests_total');
  return new Set(sets.map((l) => `${l.family}/${l.endpoint}`));
}

describe('/metrics endpoint labels', () => {
  test('every request type a route logs has a family and an endpoint', () => {
    const types = [
      'chat_completion',
      'embedding',
      'message',
      'response_create',
      'response_retrieve',
      'response_delete',
      'response_cancel',
      'response_input_items',
      'image_generation',
      'audio_speech',
      'audio_transcription',
      'audio_translation',
      'file_upload',
      'file_list',
      'file_retrieve',
      'file_delete',
      'file_download',
    ];
    for (const t of types) assert.notEqual(endpointOf(t).family, 'other', t);
    for (const t of ['batch_create', 'batch_list', 'batch_retrieve', 'batch_cancel']) {
      assert.equal(endpointOf(t, 'alpha').family, 'alpha', t);
      assert.equal(endpointOf(t, 'beta').family, 'beta', t);
    }
    assert.deepEqual(endpointOf('batch_results', 'beta'), { family: 'beta', endpoint: 'messages_batches_results' });
    // A batch's execution row carries its family in the trace, not on the record.
    assert.deepEqual(endpointOf('batch_execution', undefined, { batch_id: 'batch_1', family: 'alpha' }), {
      family: 'alpha',
      endpoint: 'batches_execution',
    });
    assert.deepEqual(endpointOf('batch_create'), { family: 'other', endpoint: 'other' });
  });

  test('files, batches, responses, images and audio calls are counted under their endpoint', async () => {
    // Files: upload, list, retrieve, content, then the alpha batch that reads it.
    const lines = [batchLine('a', { model: VENDOR_MODELS.openai, messages: [{ role: 'user', content: 'hi' }] })];
    const file = await openai.files.create({
      file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'input.jsonl'),
      purpose: 'batch',
    });
    await openai.files.list();
    await openai.files.retrieve(file.id);
    await (await openai.files.content(file.id)).text();
    const batch = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await openai.batches.list();
    await pollUntil(
      () => openai.batches.retrieve(batch.id),
      (b) => ['completed', 'failed'].includes(b.status),
    );
    await openai.batches.cancel(batch.id).catch(() => undefined);
    await openai.files.delete(file.id);

    // Beta batches: create, list, retrieve until ended, results, delete.
    const mb = await anthropic.messages.batches.create({
      requests: [
        {
          custom_id: 'q',
          params: { model: VENDOR_MODELS.anthropic, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        },
      ],
    });
    await anthropic.messages.batches.list();
    await pollUntil(
      () => anthropic.messages.batches.retrieve(mb.id),
      (b) => b.processing_status === 'ended',
    );
    for await (const _ of await anthropic.messages.batches.results(mb.id)) {
      // Read to the end: the call is counted when its answer is complete.
    }
    await anthropic.messages.batches.delete(mb.id);

    // Stored responses: create, retrieve, input items, delete.
    const resp = await openai.responses.create({ model: VENDOR_MODELS.openai, input: 'hi' });
    await openai.responses.retrieve(resp.id);
    await openai.responses.inputItems.list(resp.id);
    await openai.responses.delete(resp.id);

    // Images and audio.
    await openai.images.generate({ model: 'openai/dall-e-2', prompt: 'a lighthouse' });
    await (await openai.audio.speech.create({ model: 'openai/tts-1', voice: 'alloy', input: 'hi' })).arrayBuffer();
    await openai.audio.transcriptions.create({
      model: 'openai/whisper-1',
      file: await toFile(Buffer.from('a'), 'a.wav'),
    });
    await openai.audio.translations.create({
      model: 'openai/whisper-1',
      file: await toFile(Buffer.from('b'), 'b.wav'),
    });

    const seen = await pollUntil(
      endpointsSeen,
      (s) => s.has('alpha/batches_execution') && s.has('beta/messages_batches_execution'),
    );
    const expected = [
      'alpha/files_upload',
      'alpha/files_list',
      'alpha/files_retrieve',
      'alpha/files_content',
      'alpha/files_delete',
      'alpha/batches_create',
      'alpha/batches_list',
      'alpha/batches_retrieve',
      'alpha/batches_cancel',
      'alpha/batches_execution',
      'beta/messages_batches_create',
      'beta/messages_batches_list',
      'beta/messages_batches_retrieve',
      'beta/messages_batches_results',
      'beta/messages_batches_delete',
      'beta/messages_batches_execution',
      'alpha/responses',
      'alpha/responses_retrieve',
      'alpha/responses_input_items',
      'alpha/responses_delete',
      'alpha/images_generations',
      'alpha/audio_speech',
      'alpha/audio_transcriptions',
      'alpha/audio_translations',
    ];
    const missing = expected.filter((e) => !seen.has(e));
    assert.deepEqual(missing, [], `seen: ${[...seen].join(', ')}`);
    assert.ok(!seen.has('other/other'), `a call was counted as other/other: ${[...seen].join(', ')}`);
  });
});
