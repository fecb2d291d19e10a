import assert from 'node:assert/strict';
import { test } from 'node:test';
import { text, thinking, toolUse } from '../../ir/test-kit.ts';
import { fixtureJson } from '../shared/fixtures.ts';
import { fromOpenAIChatResponse } from './decode-response.ts';

test('text response: cached tokens are split out of prompt_tokens', () => {
  assert.deepEqual(fromOpenAIChatResponse(fixtureJson('openai-compatible', 'chat-text.json')), {
    id: 'chatcmpl-abc123',
    model: 'gpt-4o-2024-08-06',
    content: [text('Hello there.')],
    stopReason: 'end_turn',
    rawStopReason: 'stop',
    stopSequence: null,
    usage: { input: 20, output: 5, cacheRead: 100 },
  });
});

test('tool calls: arguments parsed once, unparsable text kept verbatim', () => {
  const res = fromOpenAIChatResponse(fixtureJson('openai-compatible', 'chat-tools.json'));
  assert.deepEqual(res.content, [
    toolUse('call_a', 'get_weather', { city: 'Paris' }),
    { type: 'tool_use', id: 'call_b', name: 'get_time', input: '{"tz": "Europe/Par' },
  ]);
  assert.equal(res.stopReason, 'tool_use');
  assert.deepEqual(res.usage, { input: 50, output: 20 });
});

test('together eos finish maps to end_turn', () => {
  const res = fromOpenAIChatResponse(fixtureJson('openai-compatible', 'together-eos.json'));
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(res.rawStopReason, 'eos');
  assert.deepEqual(res.content, [text('Bonjour!')]);
});

test('reasoning_content becomes a thinking block before the text; length -> max_tokens', () => {
  const res = fromOpenAIChatResponse({
    id: 'x',
    model: 'deepseek',
    choices: [{ finish_reason: 'length', message: { content: 'A', reasoning_content: 'hmm' } }],
  });
  assert.deepEqual(res.content, [thinking('hmm'), text('A')]);
  assert.equal(res.stopReason, 'max_tokens');
  assert.deepEqual(res.usage, { input: 0, output: 0 });
});
