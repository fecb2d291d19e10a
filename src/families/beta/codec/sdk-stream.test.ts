// Feeds the encoder's SSE through the official messages SDK's stream parser, so "parseable by the SDK"
// is checked by the SDK itself rather than by our reading of its source.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type { StreamEvent } from '../../../ir/types.ts';
import { BetaStreamEncoder } from './stream-encoder.ts';

const events: StreamEvent[] = [
  { type: 'start', id: 'chatcmpl-up', model: 'up', usage: { input: 0 } },
  { type: 'block_start', index: 0, block: { type: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'Need ' },
  { type: 'thinking_delta', index: 0, text: 'weather.' },
  { type: 'signature_delta', index: 0, signature: 'sig-1' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Checking ' },
  { type: 'text_delta', index: 1, text: 'now.' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_use', id: 'toolu_a', name: 'weather' } },
  { type: 'tool_args_delta', index: 2, partialJson: '{"city":' },
  { type: 'tool_args_delta', index: 2, partialJson: '"Paris"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_use', id: 'toolu_b', name: 'time' } },
  { type: 'tool_args_delta', index: 3, partialJson: '{}' },
  { type: 'block_stop', index: 3 },
  { type: 'stop', stopReason: 'tool_use' },
  { type: 'usage', usage: { input: 25, output: 40, cacheRead: 5 } },
];

let current: StreamEvent[] = events;
let server: Server;
let baseURL = '';

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const enc = new BetaStreamEncoder({ id: 'msg_sdk', model: 'gw-model' });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const ev of current) for (const rec of enc.push(ev)) res.write(rec);
      for (const rec of enc.end()) res.write(rec);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('BetaStreamEncoder through the @anthropic-ai/sdk', () => {
  it('yields the final message', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL, maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'gw-model',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'weather?' }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.id, 'msg_sdk');
    assert.equal(final.model, 'gw-model');
    assert.equal(final.stop_reason, 'tool_use');
    assert.deepEqual(
      final.content.map((b) => {
        if (b.type === 'thinking') return { type: b.type, thinking: b.thinking, signature: b.signature };
        if (b.type === 'text') return { type: b.type, text: b.text };
        if (b.type === 'tool_use') return { type: b.type, id: b.id, name: b.name, input: b.input };
        return { type: b.type };
      }),
      [
        { type: 'thinking', thinking: 'Need weather.', signature: 'sig-1' },
        { type: 'text', text: 'Checking now.' },
        { type: 'tool_use', id: 'toolu_a', name: 'weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_b', name: 'time', input: {} },
      ],
    );
    assert.equal(final.usage.input_tokens, 25);
    assert.equal(final.usage.output_tokens, 40);
    assert.equal(final.usage.cache_read_input_tokens, 5);
  });

  it('raises the error event as an SDK error', async () => {
    current = [
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'partial' },
      { type: 'error', error: { status: 529, kind: 'overloaded', message: 'Overloaded', retryable: true } },
    ];
    const client = new Anthropic({ apiKey: 'k', baseURL, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'gw', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    await assert.rejects(stream.finalMessage(), /overloaded_error|Overloaded/);
    current = events;
  });
});
