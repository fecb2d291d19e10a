// Same-family pass-through on the wire: the caller's JSON text reaches the upstream as written with
// only the model rewritten, and an upstream's stream (here written the way Python servers space
// their JSON) reaches the official SDKs whole while the log row still gets usage and text.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { api } from '../helpers/proxy-env.ts';

interface Seen {
  path: string;
  text: string;
}

let upstream: Server;
let gw: Gateway;
const seen: Seen[] = [];

const spaced = (o: unknown): string => JSON.stringify(o).replaceAll('","', '", "').replaceAll('":', '": ');

function alphaStream(): string {
  const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
  const chunk = (delta: unknown, finish: string | null) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  const records = [
    chunk({ role: 'assistant', content: '' }, null),
    chunk({ content: 'Caf\u00e9 "' }, null),
    chunk({ content: 'ok"' }, null),
    chunk({}, 'stop'),
    { ...head, choices: [], usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 } },
  ];
  return `${records.map((r) => `data: ${spaced(r)}\n\n`).join('')}data: [DONE]\n\n`;
}

function betaStream(): string {
  const events: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-3-5-haiku-latest',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hej ' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'då' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${spaced(data)}\n\n`).join('');
}

before(async () => {
  upstream = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
    });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', text });
      const body = JSON.parse(text) as { stream?: boolean };
      const alpha = (req.url ?? '').includes('chat/completions');
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(alpha ? alphaStream() : betaStream());
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        alpha
          ? JSON.stringify({
              id: 'chatcmpl-2',
              object: 'chat.completion',
              created: 1,
              model: 'gpt-4o-mini',
              choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
            })
          : JSON.stringify({
              id: 'msg_2',
              type: 'message',
              role: 'assistant',
              model: 'claude-3-5-haiku-latest',
              content: [{ type: 'text', text: 'hi' }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 3, output_tokens: 1 },
            }),
      );
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gw = await startGateway();
  for (const [vendor, base_url] of [
    ['openai', `${origin}/v1`],
    ['anthropic', origin],
  ]) {
    const r = await api(gw, 'POST', '/manage/v1/providers', { vendor, name: vendor, api_key: 'sk-x', base_url });
    assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.json));
  }
});

after(async () => {
  await gw?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

async function rowFor(id: string) {
  const svc = gw.app.svc;
  for (let i = 0; i < 40; i++) {
    await svc.logs.flush();
    const row = await svc.stores.logs.get(svc.bootstrap.orgId, id);
    if (row) return row;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log row for ${id}`);
}

async function postRaw(path: string, text: string): Promise<number> {
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
    body: text,
  });
  await res.text();
  return res.status;
}

test('the caller JSON text reaches a same-family upstream as written, only the model rewritten', async () => {
  // Key order, spacing, escapes and a nested `model` member all survive.
  const alpha =
    '{ "messages": [{"role": "user", "content": "caf\\u00e9 \\"model\\": x"}],\n  "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"model": {"type": "string"}}}}}],\n  "model": "openai/gpt-4o-mini", "seed": 1.0, "service_tier": "flex" }';
  seen.length = 0;
  assert.equal(await postRaw('/alpha/v1/chat/completions', alpha), 200);
  assert.equal(seen[0]?.text, alpha.replace('"openai/gpt-4o-mini"', '"gpt-4o-mini"'));

  const beta =
    '{"max_tokens": 64, "model": "anthropic/claude-3-5-haiku-latest", "messages": [{"role": "user", "content": "hej"}], "thinking": {"type": "disabled"}}';
  seen.length = 0;
  assert.equal(await postRaw('/beta/v1/messages', beta), 200);
  assert.equal(seen[0]?.text, beta.replace('"anthropic/claude-3-5-haiku-latest"', '"claude-3-5-haiku-latest"'));
});

test('an alpha stream reaches the openai SDK whole; the forced usage stays hidden but is logged', async () => {
  const client = new OpenAI({ apiKey: gw.adminKey, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0 });
  seen.length = 0;
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true })
    .withResponse();
  let text = '';
  let finish: string | null = null;
  for await (const chunk of stream) {
    assert.equal(chunk.usage, undefined, 'a caller who did not ask for usage gets none');
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(text, 'Café "ok"');
  assert.equal(finish, 'stop');
  assert.deepEqual(JSON.parse(seen[0]?.text ?? '{}').stream_options, { include_usage: true });
  const row = await rowFor(response.headers.get('x-svc-request-id') ?? '');
  assert.equal(row.inputTokens, 11);
  assert.equal(row.outputTokens, 4);
  assert.match(row.responseBody ?? '', /Café \\"ok\\"/);
});

test('a beta stream reaches the anthropic SDK whole and its usage is logged', async () => {
  const client = new Anthropic({ apiKey: gw.adminKey, baseURL: `${gw.url}/beta`, maxRetries: 0 });
  const { data: stream, response } = await client.messages
    .create({
      model: 'anthropic/claude-3-5-haiku-latest',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    })
    .withResponse();
  let text = '';
  let stop: string | null = null;
  for await (const ev of stream) {
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
    if (ev.type === 'message_delta') stop = ev.delta.stop_reason;
  }
  assert.equal(text, 'Hej då');
  assert.equal(stop, 'end_turn');
  const row = await rowFor(response.headers.get('x-svc-request-id') ?? '');
  assert.equal(row.inputTokens, 9);
  assert.equal(row.outputTokens, 3);
  assert.match(row.responseBody ?? '', /Hej då/);
});
