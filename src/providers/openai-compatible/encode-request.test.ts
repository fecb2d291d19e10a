import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as ir from '../../ir/test-kit.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { openaiCapabilities } from './capabilities.ts';
import { toOpenAIChatBody } from './encode-request.ts';

const base: ChatRequest = ir.chatRequest('gpt-4o');

test('full conversation: system, images, tool calls, tool results (text only), thinking dropped', () => {
  const body = toOpenAIChatBody({
    ...base,
    system: [ir.text('Be brief.', { type: 'ephemeral' })],
    messages: [
      ir.user(ir.text('Weather?'), ir.imageBase64('AAAA'), ir.imageUrl('https://x/y.png')),
      ir.assistant(
        ir.thinking('hmm', 'sig'),
        ir.text('Checking.'),
        ir.toolUse('toolu_1', 'get_weather', { city: 'Paris' }),
      ),
      ir.user(ir.text('thanks'), ir.toolResult('toolu_1', [ir.text('sunny'), ir.imageUrl('https://x/chart.png')])),
    ],
    tools: [{ name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: {} } }],
    toolChoice: { type: 'any' },
    params: { maxTokens: 100, temperature: 0.2, stop: ['END'], seed: 7, parallelToolCalls: false, topK: 5 },
    stream: true,
  }).body;
  assert.deepEqual(body, {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
      { role: 'user', content: 'thanks' },
    ],
    max_tokens: 100,
    temperature: 0.2,
    stop: ['END'],
    seed: 7,
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } },
      },
    ],
    tool_choice: 'required',
    parallel_tool_calls: false,
    stream: true,
    stream_options: { include_usage: true },
  });
});

test('tool choice by name, json_schema response format, reasoning models use max_completion_tokens', () => {
  const body = toOpenAIChatBody({
    ...base,
    model: 'o3-mini',
    tools: [{ name: 'f', inputSchema: { type: 'object' } }],
    toolChoice: { type: 'tool', name: 'f' },
    params: {
      maxTokens: 50,
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
    },
  }).body;
  assert.deepEqual(body.tool_choice, { type: 'function', function: { name: 'f' } });
  assert.deepEqual(body.response_format, {
    type: 'json_schema',
    json_schema: { name: 'out', schema: { type: 'object' }, strict: true },
  });
  assert.equal(body.max_completion_tokens, 50);
  assert.equal(body.max_tokens, undefined);
  assert.equal(body.stream, undefined);
});

test('several system blocks stay separate parts; no tools -> no tool_choice', () => {
  const body = toOpenAIChatBody({
    ...base,
    system: [
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B' },
    ],
    toolChoice: { type: 'none' },
    messages: [ir.user(ir.text('hi'))],
  }).body;
  assert.deepEqual(body.messages, [
    {
      role: 'system',
      content: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ],
    },
    { role: 'user', content: 'hi' },
  ]);
  assert.equal(body.tool_choice, undefined);
});

test('warnings: top_k said on openai and azure, sent to together and fireworks; thinking only noted', () => {
  const req: ChatRequest = { ...base, params: { topK: 40, thinking: { type: 'enabled', budgetTokens: 2048 } } };
  for (const vendor of ['openai', 'azure-openai'] as const) {
    const { body, warnings } = toOpenAIChatBody(req, openaiCapabilities(vendor));
    assert.equal(body.top_k, undefined);
    assert.deepEqual(warnings, [{ code: 'dropped:top_k' }, { code: 'dropped:thinking', silent: true }], vendor);
  }
  for (const vendor of ['together', 'fireworks'] as const) {
    const { body, warnings } = toOpenAIChatBody(req, openaiCapabilities(vendor));
    assert.equal(body.top_k, 40);
    assert.deepEqual(warnings, [{ code: 'dropped:thinking', silent: true }], vendor);
  }
});

test('warnings: penalties and logit_bias are carried; an image in a tool result is said', () => {
  const { body, warnings } = toOpenAIChatBody({
    ...base,
    params: { presencePenalty: 0.5, frequencyPenalty: -0.5, logitBias: { '50256': -100 } },
    messages: [
      ir.assistant(ir.toolUse('t1', 'shot', {})),
      ir.user(ir.toolResult('t1', [ir.text('here'), ir.imageUrl('https://x/y.png')])),
    ],
  });
  assert.deepEqual([body.presence_penalty, body.frequency_penalty, body.logit_bias], [0.5, -0.5, { '50256': -100 }]);
  assert.deepEqual(warnings, [{ code: 'dropped:tool_result_image' }]);
  assert.deepEqual(toOpenAIChatBody({ ...base, params: { temperature: 2, seed: 1 } }).warnings, []);
});
