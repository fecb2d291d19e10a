import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as ir from '../../ir/test-kit.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { toAnthropicBody } from './encode-request.ts';

const base: ChatRequest = ir.chatRequest('claude-sonnet-4-5');

test('merges same-role turns, tool results first, thinking echoed, cache_control kept, default max_tokens', () => {
  const body = toAnthropicBody({
    ...base,
    system: [ir.text('Sys', { type: 'ephemeral', ttl: '1h' })],
    messages: [
      ir.user(ir.text('Weather?')),
      ir.assistant(
        ir.thinking('hmm', 'SIG'),
        ir.thinking('unsigned, from another upstream'),
        { type: 'redacted_thinking', data: 'RED' },
        ir.toolUse('call:1', 'get_weather', { city: 'Paris' }),
      ),
      ir.user(ir.text('and then?')),
      ir.user(ir.toolResult('call:1', 'boom', true)),
    ],
    tools: [{ name: 'get_weather', inputSchema: { type: 'object' }, cacheControl: { type: 'ephemeral' } }],
    params: { stop: ['END', '  '], temperature: 1.7, topK: 4, user: 'u1', seed: 3 },
    stream: true,
  }).body;
  assert.deepEqual(body, {
    model: 'claude-sonnet-4-5',
    max_tokens: 4096,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'SIG' },
          { type: 'redacted_thinking', data: 'RED' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'boom' }], is_error: true },
          { type: 'text', text: 'and then?' },
        ],
      },
    ],
    system: [{ type: 'text', text: 'Sys', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    temperature: 1,
    top_k: 4,
    stop_sequences: ['END'],
    tools: [{ name: 'get_weather', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
    metadata: { user_id: 'u1' },
    stream: true,
  });
});

test('tool choice mapping and parallel_tool_calls false', () => {
  const tools = [{ name: 'f', inputSchema: { type: 'object' } }];
  const choice = (r: Partial<ChatRequest>) => toAnthropicBody({ ...base, tools, ...r }).body.tool_choice;
  assert.equal(choice({}), undefined);
  assert.deepEqual(choice({ toolChoice: { type: 'any' } }), { type: 'any' });
  assert.deepEqual(choice({ toolChoice: { type: 'none' } }), { type: 'none' });
  assert.deepEqual(choice({ toolChoice: { type: 'tool', name: 'f' } }), { type: 'tool', name: 'f' });
  assert.deepEqual(choice({ params: { parallelToolCalls: false } }), { type: 'auto', disable_parallel_tool_use: true });
  assert.deepEqual(choice({ toolChoice: { type: 'any' }, params: { parallelToolCalls: false } }), {
    type: 'any',
    disable_parallel_tool_use: true,
  });
  assert.equal(toAnthropicBody({ ...base, toolChoice: { type: 'any' } }).body.tool_choice, undefined);
});

test('thinking: budget on top of the default, sampling dropped, forced tool choice relaxed', () => {
  const body = toAnthropicBody({
    ...base,
    tools: [{ name: 'f', inputSchema: { type: 'object' } }],
    toolChoice: { type: 'any' },
    params: { thinking: { type: 'enabled', budgetTokens: 2048 }, temperature: 0.5, topP: 0.9 },
  }).body;
  assert.equal(body.max_tokens, 2048 + 4096);
  assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 2048 });
  assert.equal(body.temperature, undefined);
  assert.equal(body.top_p, undefined);
  assert.deepEqual(body.tool_choice, { type: 'auto' });
  const tight = toAnthropicBody({
    ...base,
    params: { maxTokens: 1500, thinking: { type: 'enabled', budgetTokens: 4000 } },
  }).body;
  assert.deepEqual(tight.thinking, { type: 'enabled', budget_tokens: 1499 });
  const tooSmall = toAnthropicBody({
    ...base,
    params: { maxTokens: 500, thinking: { type: 'enabled', budgetTokens: 4000 } },
  }).body;
  assert.equal(tooSmall.thinking, undefined);
  assert.equal(tooSmall.max_tokens, 500);
});

test('response format asks for JSON in the system prompt; images map to sources', () => {
  const body = toAnthropicBody({
    ...base,
    messages: [ir.user(ir.imageBase64('AAA'), ir.imageUrl('https://x/y.png'))],
    params: { responseFormat: { type: 'json_schema', name: 'o', schema: { type: 'object' } } },
  }).body;
  const system = body.system as Array<{ text: string }>;
  assert.equal(system.length, 1);
  assert.match(system[0].text, /single JSON object/);
  assert.match(system[0].text, /\{"type":"object"\}/);
  assert.deepEqual(body.messages, [
    {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
        { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
      ],
    },
  ]);
});

test('warnings: parameters the wire lacks are said, seed only noted, nothing said for a plain call', () => {
  assert.deepEqual(toAnthropicBody({ ...base, params: { maxTokens: 10, topK: 5 } }).warnings, []);
  const { body, warnings } = toAnthropicBody({
    ...base,
    params: { presencePenalty: 0.5, frequencyPenalty: 0.1, logitBias: { '50256': -100 }, seed: 7, topK: 5 },
  });
  assert.deepEqual(warnings, [
    { code: 'dropped:seed', silent: true },
    { code: 'dropped:presence_penalty' },
    { code: 'dropped:frequency_penalty' },
    { code: 'dropped:logit_bias' },
  ]);
  for (const key of ['presence_penalty', 'frequency_penalty', 'logit_bias', 'seed']) assert.equal(body[key], undefined);
  assert.equal(body.top_k, 5);
  // Images in tool results travel on this wire: nothing to say.
  assert.deepEqual(toAnthropicBody({ ...base, messages: [...ir.IMAGE_TOOL_RESULT] }).warnings, []);
});

test('warnings: a temperature above 1 is clamped and said', () => {
  const { body, warnings } = toAnthropicBody({ ...base, params: { temperature: 1.6 } });
  assert.equal(body.temperature, 1);
  assert.deepEqual(warnings, [{ code: 'clamped:temperature' }]);
});

test('warnings: thinking drops sampling and forced tool choice, and says so; a budget that cannot fit is said', () => {
  const tools = [{ name: 'f', inputSchema: { type: 'object' } }];
  const { warnings } = toAnthropicBody({
    ...base,
    tools,
    toolChoice: { type: 'any' },
    params: { maxTokens: 8000, thinking: { type: 'enabled', budgetTokens: 2048 }, temperature: 0.2, topP: 0.9 },
  });
  assert.deepEqual(warnings, [
    { code: 'dropped:temperature' },
    { code: 'dropped:top_p' },
    { code: 'dropped:tool_choice' },
  ]);
  const tooSmall = toAnthropicBody({
    ...base,
    params: { maxTokens: 500, thinking: { type: 'enabled', budgetTokens: 2048 } },
  });
  assert.equal(tooSmall.body.thinking, undefined);
  assert.deepEqual(tooSmall.warnings, [{ code: 'dropped:thinking' }]);
  const shrunk = toAnthropicBody({
    ...base,
    params: { maxTokens: 3000, thinking: { type: 'enabled', budgetTokens: 4000 } },
  });
  assert.deepEqual(shrunk.body.thinking, { type: 'enabled', budget_tokens: 2999 });
  assert.deepEqual(shrunk.warnings, [{ code: 'clamped:thinking.budget_tokens' }]);
});

test('warnings: blank stop sequences are left out and said', () => {
  const { body, warnings } = toAnthropicBody({ ...base, params: { stop: ['END', '  '] } });
  assert.deepEqual(body.stop_sequences, ['END']);
  assert.deepEqual(warnings, [{ code: 'dropped:stop' }]);
});
