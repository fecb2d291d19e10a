// Pure pieces of the OpenAI-wire emulation: serializer parity, stream payloads, tool arguments, multipart, pages.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveAzurePath } from '../azure/index.ts';
import { answerChat, chatCompletionJson } from '../openai/chat-build.ts';
import { chatCompletionText } from '../openai/chat-serialize.ts';
import { chatStreamPayloads } from '../openai/chat-stream.ts';
import { parseMultipart } from '../openai/multipart.ts';
import { cursorPage } from '../openai/pagination.ts';
import { buildResponse } from '../openai/responses/build.ts';
import { responseEvents } from '../openai/responses/events.ts';
import { argumentsFor } from '../openai/tool-args.ts';

const tools = [
  { type: 'function', function: { name: 'a', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
  { type: 'function', function: { name: 'b' } },
];

describe('chat serialization', () => {
  test('the hot-path string equals JSON.stringify of the object, for text, tools and n > 1', () => {
    const cases = [
      answerChat({ model: 'm "quoted"', messages: [{ role: 'user', content: 'he said "hi"\n' }] }),
      answerChat({ model: 'm-tools-2', tools, messages: [{ role: 'user', content: 'x' }] }),
      answerChat({ model: 'm', n: 3, max_tokens: 1, messages: [{ role: 'user', content: 'long enough text' }] }),
    ];
    for (const a of cases) assert.equal(chatCompletionText(a), JSON.stringify(chatCompletionJson(a)));
  });
});

describe('chat stream payloads', () => {
  test('usage null on every chunk but the last when include_usage; [DONE] last', () => {
    const a = answerChat({ model: 'm', messages: [{ role: 'user', content: 'abcdefghij' }] });
    const p = chatStreamPayloads(a, { includeUsage: true });
    assert.equal(p.at(-1), '[DONE]');
    const chunks = p.slice(0, -1) as Array<Record<string, unknown>>;
    assert.deepEqual(chunks.at(-1)?.choices, []);
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    const plain = chatStreamPayloads(a, { includeUsage: false }).slice(0, -1) as Array<Record<string, unknown>>;
    assert.ok(plain.every((c) => !('usage' in c)));
  });

  test('midstream-error: at most 3 chunks then an error record, no [DONE]', () => {
    const a = answerChat({ model: 'm-midstream-error', messages: [{ role: 'user', content: 'abcdefghij' }] });
    const p = chatStreamPayloads(a, { includeUsage: true });
    assert.equal(p.length, 4);
    assert.ok(typeof p[3] === 'object' && 'error' in p[3]);
  });
});

describe('tool arguments', () => {
  test('query when allowed, else the first string property, required ones filled by type', () => {
    assert.deepEqual(argumentsFor(undefined, 't'), { query: 't' });
    assert.deepEqual(
      argumentsFor({ type: 'object', properties: { query: { type: 'string' }, k: { type: 'integer' } } }, 't'),
      {
        query: 't',
      },
    );
    assert.deepEqual(
      argumentsFor(
        {
          type: 'object',
          properties: {
            unit: { type: 'string', enum: ['c', 'f'] },
            city: { type: 'string' },
            n: { type: 'number' },
            ok: { type: 'boolean' },
          },
          required: ['unit', 'n', 'ok'],
        },
        't',
      ),
      { city: 't', unit: 'c', n: 1, ok: true },
    );
  });
});

describe('multipart', () => {
  test('fields and files, binary-safe', async () => {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([new Uint8Array([0, 13, 10, 45, 45, 255])]), 'x.bin');
    const req = new Request('http://x', { method: 'POST', body: form });
    const body = Buffer.from(await req.arrayBuffer());
    const parsed = parseMultipart(body, req.headers.get('content-type') ?? undefined);
    assert.equal(parsed?.fields.get('purpose'), 'batch');
    assert.deepEqual([...(parsed?.files.get('file')?.data ?? [])], [0, 13, 10, 45, 45, 255]);
    assert.equal(parsed?.files.get('file')?.filename, 'x.bin');
    assert.equal(parseMultipart(body, 'application/json'), undefined);
  });
});

describe('cursor pages', () => {
  const items = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
  const page = (q: string) => cursorPage(items, new URLSearchParams(q), 20, 100);
  test('limit / after / before', () => {
    assert.deepEqual(page('limit=2').data, [{ id: 'a' }, { id: 'b' }]);
    assert.equal(page('limit=2').has_more, true);
    assert.deepEqual(page('after=c').data, [{ id: 'd' }, { id: 'e' }]);
    assert.equal(page('after=c').has_more, false);
    assert.deepEqual(page('before=d&limit=2').data, [{ id: 'b' }, { id: 'c' }]);
    assert.equal(page('after=zzz').data.length, 0);
  });
});

describe('responses events', () => {
  test('sequence numbers are 0..n-1; deltas rebuild the text; background adds response.queued', () => {
    const r = buildResponse({ model: 'm', input: 'some input text' }).response;
    const ev = responseEvents(r, { background: true, midstreamError: false, long: false });
    assert.deepEqual(
      ev.map((e) => e.sequence_number),
      ev.map((_, i) => i),
    );
    assert.equal(ev[0].type, 'response.queued');
    const text = ev
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('');
    assert.equal(text, 'Echo: some input text');
  });
});

describe('azure paths', () => {
  test('classic deployment, classic non-deployment and v1 forms', () => {
    assert.deepEqual(resolveAzurePath('/azure', '/openai/deployments/dep%201/embeddings'), {
      env: { vendor: 'azure', model: 'dep 1', base: '/azure/openai/deployments/dep%201' },
      path: '/embeddings',
      needsVersion: true,
    });
    assert.equal(resolveAzurePath('/azure', '/openai/files')?.path, '/files');
    assert.equal(resolveAzurePath('/azure', '/openai/v1/responses')?.needsVersion, false);
    assert.equal(resolveAzurePath('/azure', '/other'), undefined);
  });
});
