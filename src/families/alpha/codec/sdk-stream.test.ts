// Feeds the encoder's SSE through the official chat-completions SDK's stream parser, so "parseable by
// the SDK" is checked by the SDK itself rather than by our reading of its source.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { type EncoderServer, serveEncoder, TOOL_TURN } from '../../../../test/helpers/encoder-server.ts';
import { newAlphaStreamEncoder } from './stream-encoder.ts';

let server: EncoderServer;
let baseURL = '';

before(async () => {
  const ids = { id: 'chatcmpl-sdk', model: 'gw-model', created: 1700000000 };
  server = await serveEncoder(() => newAlphaStreamEncoder({ ...ids, includeUsage: true }), [...TOOL_TURN]);
  baseURL = `${server.origin}/v1`;
});

after(() => server.close());

describe('the alpha stream encoder through the openai SDK', () => {
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
    assert.equal(choice.message.content, 'Checking now.');
    assert.deepEqual(
      choice.message.tool_calls?.map((c) =>
        c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : [],
      ),
      [
        ['toolu_a', 'weather', '{"city":"Paris"}'],
        ['toolu_b', 'time', '{}'],
      ],
    );
    // Cache reads count in prompt_tokens on this wire.
    assert.deepEqual(final.usage, {
      prompt_tokens: 30,
      completion_tokens: 40,
      total_tokens: 70,
      prompt_tokens_details: { cached_tokens: 5 },
    });
  });

  it('raises the mid-stream error record as an SDK error', async () => {
    server.events = [
      { type: 'text_delta', index: 0, text: 'partial' },
      { type: 'error', error: { status: 429, kind: 'rate_limit', message: 'slow down', retryable: true } },
    ];
    const client = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: 'gw-model', messages: [{ role: 'user', content: 'x' }] });
    await assert.rejects(stream.finalChatCompletion(), /slow down/);
    server.events = [...TOOL_TURN];
  });
});
