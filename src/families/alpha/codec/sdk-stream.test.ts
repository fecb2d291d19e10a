// Feeds the encoder's SSE through the official chat-completions SDK's stream parser, so "parseable by
// the SDK" is checked by the SDK itself rather than by our reading of its source.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { StreamEvent } from '../../../ir/types.ts';
import { AlphaStreamEncoder } from './stream-encoder.ts';

const events: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'up', usage: { input: 11 } },
  { type: 'block_start', index: 0, block: { type: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'plan' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Let me ' },
  { type: 'text_delta', index: 1, text: 'check.' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_use', id: 'toolu_a', name: 'weather' } },
  { type: 'tool_args_delta', index: 2, partialJson: '{"city":"Pa' },
  { type: 'tool_args_delta', index: 2, partialJson: 'ris"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_use', id: 'toolu_b', name: 'time' } },
  { type: 'tool_args_delta', index: 3, partialJson: '{}' },
  { type: 'block_stop', index: 3 },
  { type: 'stop', stopReason: 'tool_use' },
  { type: 'usage', usage: { output: 20 } },
];

let current: StreamEvent[] = events;
let server: Server;
let baseURL = '';

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const enc = new AlphaStreamEncoder({
        id: 'chatcmpl-sdk',
        model: 'gw-model',
        created: 1700000000,
        includeUsage: true,
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const ev of current) for (const rec of enc.push(ev)) res.write(rec);
      for (const rec of enc.end()) res.write(rec);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('AlphaStreamEncoder through the openai SDK', () => {
  it('yields the final chat completion', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: 'gw-model',
      messages: [{ role: 'user', content: 'weather?' }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    assert.equal(final.id, 'chatcmpl-sdk');
    assert.equal(final.model, 'gw-model');
    assert.equal(final.choices.length, 1);
    const choice = final.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, 'Let me check.');
    assert.deepEqual(
      choice.message.tool_calls?.map((c) =>
        c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [],
      ),
      [
        ['toolu_a', 'weather', '{"city":"Paris"}'],
        ['toolu_b', 'time', '{}'],
      ],
    );
    assert.deepEqual(final.usage, { prompt_tokens: 11, completion_tokens: 20, total_tokens: 31 });
  });

  it('raises the mid-stream error record as an SDK error', async () => {
    current = [
      { type: 'text_delta', index: 0, text: 'partial' },
      { type: 'error', error: { status: 429, kind: 'rate_limit', message: 'slow down', retryable: true } },
    ];
    const client = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: 'gw-model', messages: [{ role: 'user', content: 'x' }] });
    await assert.rejects(stream.finalChatCompletion(), /slow down/);
    current = events;
  });
});
