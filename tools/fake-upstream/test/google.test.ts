// Drives the Gemini emulation with the official @google/genai SDK, plus its strictness rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GoogleGenAI, type Tool, Type } from '@google/genai';
import { countTokens } from '../script.ts';
import { type FakeUpstream, startFakeUpstream } from '../server.ts';

let fake: FakeUpstream;
let ai: GoogleGenAI;

before(async () => {
  fake = await startFakeUpstream();
  ai = new GoogleGenAI({ apiKey: 'sk-gem', httpOptions: { baseUrl: `${fake.url}/google` } });
});
after(() => fake.close());

const weather: Tool = {
  functionDeclarations: [
    { name: 'get_weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } },
    { name: 'get_time', parametersJsonSchema: { type: 'object', properties: {} } },
  ],
};

describe('gemini via the official SDK', () => {
  test('generateContent: text, finishReason and exact usage; key header sent', async () => {
    fake.clearRequests();
    const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hello Gemini' });
    assert.equal(r.text, 'Echo: Hello Gemini');
    assert.equal(r.candidates?.[0].finishReason, 'STOP');
    assert.equal(r.usageMetadata?.promptTokenCount, countTokens('Hello Gemini'));
    assert.equal(r.usageMetadata?.candidatesTokenCount, countTokens('Echo: Hello Gemini'));
    const [rec] = fake.requests();
    assert.equal(rec.path, '/google/v1beta/models/gemini-2.5-flash:generateContent');
    assert.ok(rec.headers['x-goog-api-key']);
  });

  test('generateContentStream: many chunks, last carries finishReason + usage', async () => {
    const stream = await ai.models.generateContentStream({ model: 'gemini-long', contents: 'stream please' });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    assert.ok(chunks.length >= 20);
    const text = chunks.map((c) => c.text ?? '').join('');
    assert.match(text, /^Echo: stream please \[1\]/);
    const last = chunks.at(-1);
    assert.equal(last?.candidates?.[0].finishReason, 'STOP');
    assert.equal(last?.usageMetadata?.candidatesTokenCount, countTokens(text));
    assert.equal(chunks[0].candidates?.[0].finishReason, undefined);
  });

  test('tools: functionCall parts with STOP; parallel for tools-2; functionResponse answers text', async () => {
    const r = await ai.models.generateContent({
      model: 'gemini-tools-2',
      contents: 'Oslo',
      config: { tools: [weather] },
    });
    assert.deepEqual(
      r.functionCalls?.map((c) => [c.name, c.args]),
      [
        ['get_weather', { city: 'Oslo' }],
        ['get_time', { query: 'Oslo' }],
      ],
    );
    assert.equal(r.candidates?.[0].finishReason, 'STOP');
    const follow = await ai.models.generateContent({
      model: 'gemini-tools',
      config: { tools: [weather] },
      contents: [
        { role: 'user', parts: [{ text: 'Oslo' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: '3C' } } }] },
      ],
    });
    assert.equal(follow.text, 'Echo: 3C');
  });

  test('thinking: thought parts and thoughtsTokenCount', async () => {
    const r = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'ponder',
      config: { thinkingConfig: { includeThoughts: true } },
    });
    const parts = r.candidates?.[0].content?.parts ?? [];
    assert.equal(parts[0].thought, true);
    assert.ok((r.usageMetadata?.thoughtsTokenCount ?? 0) > 0);
    assert.equal(r.text, 'Echo: ponder');
  });

  test('json mode via responseMimeType', async () => {
    const r = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'data',
      config: { responseMimeType: 'application/json' },
    });
    assert.deepEqual(JSON.parse(r.text ?? ''), { answer: 'data', ok: true });
  });

  test('embedContent (sent as batchEmbedContents) with outputDimensionality; dims-<n> wins', async () => {
    const r = await ai.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['a', 'b'],
      config: { outputDimensionality: 64 },
    });
    assert.equal(r.embeddings?.length, 2);
    assert.equal(r.embeddings?.[0].values?.length, 64);
    const full = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: 'a' });
    assert.equal(full.embeddings?.[0].values?.length, 3072);
    assert.deepEqual(full.embeddings?.[0].values?.slice(0, 64), r.embeddings?.[0].values);
    const forced = await ai.models.embedContent({
      model: 'emb-dims-7',
      contents: 'a',
      config: { outputDimensionality: 64 },
    });
    assert.equal(forced.embeddings?.[0].values?.length, 7);
  });

  test('midstream-error: the SDK throws from the stream', async () => {
    const stream = await ai.models.generateContentStream({ model: 'gemini-midstream-error', contents: 'x' });
    await assert.rejects(async () => {
      for await (const _ of stream) {
        /* drain */
      }
    });
  });

  test('scripted fail-429 surfaces as an ApiError with status 429', async () => {
    await assert.rejects(ai.models.generateContent({ model: 'gemini-fail-429', contents: 'x' }), (e: unknown) => {
      return typeof e === 'object' && e !== null && (e as { status?: number }).status === 429;
    });
  });

  test('countTokens and models list', async () => {
    const c = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'count these words' });
    assert.equal(c.totalTokens, countTokens('count these words'));
    const pager = await ai.models.list();
    assert.ok(pager.page.length >= 3);
  });
});

describe('gemini strictness (raw HTTP, Google error shape)', () => {
  async function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': 'sk-g' }) {
    const res = await fetch(`${fake.url}/google/v1beta/models/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as { error: { code: number; message: string; status: string } },
    };
  }
  async function rejects(
    path: string,
    body: unknown,
    pattern: RegExp,
    code = 400,
    status = 'INVALID_ARGUMENT',
    headers?: Record<string, string>,
  ) {
    const r = await post(path, body, headers);
    assert.equal(r.status, code, JSON.stringify(r.body));
    assert.equal(r.body.error.code, code);
    assert.equal(r.body.error.status, status);
    assert.match(r.body.error.message, pattern);
  }
  const gen = 'gemini-2.5-flash:generateContent';
  const ok = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

  test('baseline accepted, ?key= accepted', async () => {
    assert.equal((await post(gen, ok)).status, 200);
    assert.equal((await post(`${gen}?key=sk-q`, ok, {})).status, 200);
  });
  test('missing or bad key', async () => {
    await rejects(gen, ok, /API key/, 401, 'UNAUTHENTICATED', {});
    await rejects(gen, ok, /API key not valid/, 401, 'UNAUTHENTICATED', { 'x-goog-api-key': 'AIza-bad' });
  });
  test('empty contents', () => rejects(gen, { contents: [] }, /contents is not specified/));
  test('role other than user/model', () =>
    rejects(gen, { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, /valid role: user, model/));
  test('empty parts, part without data, unknown part field', async () => {
    await rejects(gen, { contents: [{ role: 'user', parts: [] }] }, /must not be empty/);
    await rejects(gen, { contents: [{ role: 'user', parts: [{}] }] }, /oneof field 'data'/);
    await rejects(gen, { contents: [{ role: 'user', parts: [{ content: 'x' }] }] }, /Unknown name "content"/);
  });
  test('functionResponse.response must be an object; bad function name', async () => {
    await rejects(
      gen,
      { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: '18C' } }] }] },
      /function_response/,
    );
    await rejects(gen, { ...ok, tools: [{ functionDeclarations: [{ name: '1bad name' }] }] }, /Invalid function name/);
  });
  test('embeddings: bad outputDimensionality, empty batch, mismatched model', async () => {
    const content = { parts: [{ text: 'x' }] };
    await rejects('text-embedding-004:embedContent', { content, outputDimensionality: 5000 }, /output_dimensionality/);
    await rejects('text-embedding-004:batchEmbedContents', { requests: [] }, /requests/);
    await rejects(
      'text-embedding-004:batchEmbedContents',
      { requests: [{ model: 'models/other', content }] },
      /differs/,
    );
  });
  test('blocked prompt answers promptFeedback without candidates', async () => {
    const r = await post('gemini-blocked:generateContent', ok);
    assert.equal(r.status, 200);
    assert.deepEqual(
      (r.body as unknown as { promptFeedback: { blockReason: string } }).promptFeedback.blockReason,
      'SAFETY',
    );
  });
  test('stream without alt=sse is a JSON array; with alt=sse there is no sentinel', async () => {
    const arr = await post('gemini-x:streamGenerateContent', ok);
    assert.ok(Array.isArray(arr.body));
    const res = await fetch(`${fake.url}/google/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'sk-g', 'content-type': 'application/json' },
      body: JSON.stringify(ok),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const text = await res.text();
    assert.ok(!text.includes('[DONE]'));
    assert.ok(
      text
        .trim()
        .split('\n\n')
        .every((e) => e.startsWith('data: {')),
    );
  });
});
