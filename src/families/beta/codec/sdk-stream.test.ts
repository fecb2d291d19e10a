// Feeds the encoder's SSE through the official messages SDK's stream parser, so "parseable by the SDK"
// is checked by the SDK itself rather than by our reading of its source.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { type EncoderServer, serveEncoder, TOOL_TURN } from '../../../../test/helpers/encoder-server.ts';
import { newBetaStreamEncoder } from './stream-encoder.ts';

let server: EncoderServer;

before(async () => {
  server = await serveEncoder(() => newBetaStreamEncoder({ id: 'msg_sdk', model: 'gw-model' }), [...TOOL_TURN]);
});

after(() => server.close());

describe('the beta stream encoder through the @anthropic-ai/sdk', () => {
  it('yields the final message', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: server.origin, maxRetries: 0 });
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
    server.events = [
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'text_delta', index: 0, text: 'partial' },
      { type: 'error', error: { status: 529, kind: 'overloaded', message: 'Overloaded', retryable: true } },
    ];
    const client = new Anthropic({ apiKey: 'k', baseURL: server.origin, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'gw', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    await assert.rejects(stream.finalMessage(), /overloaded_error|Overloaded/);
    server.events = [...TOOL_TURN];
  });
});
