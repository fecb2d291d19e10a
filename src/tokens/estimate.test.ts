import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../ir/types.ts';
import {
  countTextTokens,
  estimateRequestTokens,
  IMAGE_TOKENS,
  PER_MESSAGE_TOKENS,
  PER_REQUEST_TOKENS,
} from './estimate.ts';

/** Varied English-like text of about `size` characters; deterministic. */
function prose(size: number): string {
  const words = [
    'route',
    'the',
    'gateway',
    'model',
    'tokens',
    'cost',
    'stream',
    'vendor',
    'cache',
    'retry',
    'JSON',
    'budget',
    '2048',
    'latency',
    'fallback',
    'über',
    'schema',
    'request,',
    'response.',
    'Anthropic',
    'Bedrock',
  ];
  let seed = 7;
  const out: string[] = [];
  let len = 0;
  while (len < size) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const w = words[seed % words.length];
    out.push(w);
    len += w.length + 1;
  }
  return out.join(' ').slice(0, size);
}

function request(parts: Partial<ChatRequest>): ChatRequest {
  return { model: 'm', system: [], messages: [], tools: [], params: {}, stream: false, ...parts };
}

describe('countTextTokens (o200k_base)', () => {
  it('matches the encoding for short known strings', () => {
    assert.equal(countTextTokens(''), 0);
    assert.equal(countTextTokens('hello world'), 2);
    assert.equal(countTextTokens('Hello, world!'), 4);
  });

  it('treats special-token text as plain text instead of throwing', () => {
    assert.ok(countTextTokens('<|endoftext|> hi') > 2);
  });

  it('is fast enough for the hot path on a 2 KB prompt', (t) => {
    countTextTokens('warm up');
    const texts = Array.from({ length: 50 }, (_, i) => `${i} ${prose(2048)}`);
    const t0 = performance.now();
    for (const text of texts) countTextTokens(text);
    const perCallUs = ((performance.now() - t0) * 1000) / texts.length;
    t.diagnostic(`countTextTokens 2 KB: ${perCallUs.toFixed(1)} µs/call, ${countTextTokens(texts[0])} tokens`);
    // Generous bound: the machine is shared; typical figures are well under 1 ms.
    assert.ok(perCallUs < 5000, `${perCallUs} µs`);
  });
});

describe('estimateRequestTokens', () => {
  it('adds system, message blocks, images, tool schemas and framing', () => {
    const tool = { name: 'get_weather', description: 'Weather for a city', inputSchema: { type: 'object' } };
    const req = request({
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello, world!' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: { city: 'Oslo' } }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'sunny' }] }],
        },
      ],
      tools: [tool],
    });
    const expected =
      PER_REQUEST_TOKENS +
      countTextTokens('You are terse.') +
      3 * PER_MESSAGE_TOKENS +
      4 +
      IMAGE_TOKENS +
      countTextTokens('get_weather') +
      countTextTokens('{"city":"Oslo"}') +
      countTextTokens('sunny') +
      countTextTokens(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.inputSchema }));
    assert.equal(estimateRequestTokens(req), expected);
  });

  it('grows with the prompt and stays close to the text count', () => {
    const text = prose(2048);
    const n = estimateRequestTokens(request({ messages: [{ role: 'user', content: [{ type: 'text', text }] }] }));
    assert.equal(n, countTextTokens(text) + PER_REQUEST_TOKENS + PER_MESSAGE_TOKENS);
  });

  it('measures a typical 2 KB request', (t) => {
    const reqs = Array.from({ length: 50 }, (_, i) =>
      request({
        system: [{ type: 'text', text: `Assistant ${i}. Answer briefly.` }],
        messages: [{ role: 'user', content: [{ type: 'text', text: prose(2048) + i }] }],
      }),
    );
    estimateRequestTokens(reqs[0]);
    const t0 = performance.now();
    for (const req of reqs) estimateRequestTokens(req);
    const perCallUs = ((performance.now() - t0) * 1000) / reqs.length;
    t.diagnostic(`estimateRequestTokens 2 KB request: ${perCallUs.toFixed(1)} µs/call`);
    assert.ok(perCallUs < 5000);
  });
});
