import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAlphaChat } from '../families/alpha/codec/decode-request.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { decodeBetaMessages } from '../families/beta/codec/decode-request.ts';
import type { ChatRequest } from '../ir/types.ts';
import { cacheEligible, fitsMaxTokens, semanticEligible } from './eligibility.ts';
import { cosine } from './embedder.ts';
import { promptText } from './key.ts';
import { LocalEmbedder } from './local-embedder.ts';
import { type CacheSettings, DEFAULT_CACHE_SETTINGS } from './settings.ts';

const settings: CacheSettings = { ...DEFAULT_CACHE_SETTINGS, enabled: true, max_messages: 5 };

const alphaBody = {
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
  temperature: 0.2,
};

const alpha = (over: Record<string, unknown> = {}): ChatRequest => decodeAlphaChat({ ...alphaBody, ...over }).ir;
const beta = (over: Record<string, unknown> = {}): ChatRequest =>
  decodeBetaMessages({ model: 'claude-sonnet-4-5', max_tokens: 1024, ...over }).ir;

describe('eligibility', () => {
  const ok = { eligible: true };
  const reason = (r: { eligible: boolean; reason?: string }) => (r.eligible ? 'eligible' : r.reason);

  it('accepts a plain question', () => {
    assert.deepEqual(semanticEligible(alpha(), settings), ok);
    assert.deepEqual(cacheEligible(alpha(), settings), ok);
  });

  it('refuses temperatures above the maximum; unset counts as 0', () => {
    assert.equal(reason(cacheEligible(alpha({ temperature: 0.71 }), settings)), 'temperature_above_max');
    assert.deepEqual(cacheEligible(alpha({ temperature: 0.7 }), settings), ok);
    assert.deepEqual(cacheEligible(alpha({ temperature: undefined }), { ...settings, max_temperature: 0 }), ok);
  });

  it('refuses several choices and log probabilities, which a stored answer cannot give', () => {
    const req = alpha();
    assert.equal(reason(cacheEligible(req, settings, alphaCodec.wireExtras({ ...alphaBody, n: 2 }))), 'n_above_1');
    assert.deepEqual(cacheEligible(req, settings, alphaCodec.wireExtras({ ...alphaBody, n: 1 })), ok);
    assert.equal(reason(semanticEligible(req, settings, alphaCodec.wireExtras({ logprobs: true }))), 'logprobs');
    assert.deepEqual(alphaCodec.wireExtras({ n: 3, logprobs: false, top_logprobs: 2, other: 1 }), {
      n: 3,
      logprobs: false,
      topLogprobs: 2,
    });
  });

  it('keeps the semantic tier to text-only conversations it can compare', () => {
    const withTools = alpha({
      messages: [
        alphaBody.messages[1],
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'Paris' },
      ],
    });
    assert.equal(reason(semanticEligible(withTools, settings)), 'tool_history');
    assert.deepEqual(cacheEligible(withTools, settings), ok, 'the exact tier still applies');
    const image = alpha({
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] }],
    });
    assert.equal(reason(semanticEligible(image, settings)), 'images');
    const thinking = beta({
      messages: [
        { role: 'user', content: 'Q' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'A' },
          ],
        },
        { role: 'user', content: 'Q2' },
      ],
    });
    assert.equal(reason(semanticEligible(thinking, settings)), 'thinking_history');
    const prefill = beta({
      messages: [
        { role: 'user', content: 'Q' },
        { role: 'assistant', content: 'The answer is' },
      ],
    });
    assert.equal(reason(semanticEligible(prefill, settings)), 'assistant_prefill');
    assert.equal(
      reason(semanticEligible(alpha({ messages: [{ role: 'user', content: ' ' }] }), settings)),
      'empty_prompt',
    );
  });

  it('refuses conversations longer than max_messages', () => {
    const turns = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ];
    assert.deepEqual(semanticEligible(alpha({ messages: turns }), { ...settings, max_messages: 3 }), ok);
    assert.equal(
      reason(semanticEligible(alpha({ messages: turns }), { ...settings, max_messages: 2 })),
      'too_many_messages',
    );
    assert.equal(reason(semanticEligible(alpha({ messages: turns }), DEFAULT_CACHE_SETTINGS)), 'too_many_messages');
  });

  // Why max_messages defaults to 1: a shared history dilutes the last question until a different one
  // scores above the default threshold.
  it('a long shared history hides a different follow-up from a whole-conversation embedding', () => {
    const answer =
      'Paris is the capital and largest city of France. It sits on the Seine in the north of the country, ' +
      'has been the seat of government for most of the last thousand years, and is home to the national ' +
      'parliament, the presidency and most ministries. Its metropolitan area holds about twelve million people.';
    const conversation = (followUp: string) =>
      alpha({
        messages: [
          { role: 'user', content: 'What is the capital of France?' },
          { role: 'assistant', content: answer },
          { role: 'user', content: followUp },
        ],
      });
    const e = new LocalEmbedder();
    const a = e.embedOne(promptText(conversation('How many people live there?')));
    const b = e.embedOne(promptText(conversation('Which river runs through it?')));
    const similarity = cosine(a, b);
    assert.ok(similarity > DEFAULT_CACHE_SETTINGS.similarity_threshold, `similarity ${similarity}`);
  });
});

describe('fitsMaxTokens', () => {
  const req = (maxTokens?: number): ChatRequest => ({ ...alpha(), params: { maxTokens } });
  it('serves a finished answer under any limit it fits, a truncated one only under its own limit', () => {
    assert.ok(fitsMaxTokens(req(1000), { outputTokens: 300, stopReason: 'end_turn', maxTokens: 1010 }));
    assert.ok(fitsMaxTokens(req(undefined), { outputTokens: 300, stopReason: 'end_turn' }));
    assert.ok(!fitsMaxTokens(req(1000), { outputTokens: 1005, stopReason: 'end_turn', maxTokens: 1010 }));
    assert.ok(!fitsMaxTokens(req(1000), { outputTokens: 1010, stopReason: 'max_tokens', maxTokens: 1010 }));
    assert.ok(fitsMaxTokens(req(1010), { outputTokens: 1010, stopReason: 'max_tokens', maxTokens: 1010 }));
  });
});
