import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ir from '../../ir/test-kit.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { toConverseBody } from './encode-request.ts';

const base = (over: Partial<ChatRequest>): ChatRequest => ir.chatRequest('amazon.nova-pro-v1:0', over);

describe('toConverseBody', () => {
  it('maps system, blocks, merged turns and inference config; URL images are dropped', () => {
    const body = toConverseBody(
      base({
        system: [ir.text('Be brief.', { type: 'ephemeral' })],
        messages: [
          ir.user(ir.text('Look:'), ir.imageBase64('AAAA'), ir.imageUrl('https://example.com/a.png'), ir.text('   ')),
          ir.user(ir.text('and this')),
          ir.assistant(
            { type: 'thinking', thinking: 'pondering', signature: 'sig' },
            { type: 'redacted_thinking', data: 'cmVk' },
            ir.text('Sure.'),
          ),
        ],
        params: { maxTokens: 200, temperature: 0.3, topP: 0.8, topK: 5, stop: ['###'], seed: 1, user: 'u' },
      }),
    ).body;
    assert.deepEqual(body, {
      messages: [
        {
          role: 'user',
          content: [{ text: 'Look:' }, { image: { format: 'png', source: { bytes: 'AAAA' } } }, { text: 'and this' }],
        },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'pondering', signature: 'sig' } } },
            { reasoningContent: { redactedContent: 'cmVk' } },
            { text: 'Sure.' },
          ],
        },
      ],
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
      inferenceConfig: { maxTokens: 200, temperature: 0.3, topP: 0.8, stopSequences: ['###'] },
    });
  });

  it('maps tools and tool choice, and tool results (status only for Claude)', () => {
    const messages: ChatRequest['messages'] = [
      ir.user(ir.text('Weather in Paris?')),
      ir.assistant(ir.toolUse('tooluse_1', 'get_weather', { city: 'Paris' })),
      ir.user(ir.text('here'), ir.toolResult('tooluse_1', '18C', false)),
    ];
    const tools = [{ name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: {} } }];
    const nova = toConverseBody(base({ messages, tools, toolChoice: { type: 'tool', name: 'get_weather' } })).body;
    assert.deepEqual(nova.messages, [
      { role: 'user', content: [{ text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }],
      },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '18C' }] } }, { text: 'here' }],
      },
    ]);
    assert.deepEqual(nova.toolConfig, {
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            inputSchema: { json: { type: 'object', properties: {} } },
            description: 'Weather',
          },
        },
      ],
      toolChoice: { tool: { name: 'get_weather' } },
    });
    const claude = toConverseBody(base({ model: 'us.anthropic.claude-sonnet-4-20250514-v1:0', messages, tools })).body;
    const turn = (claude.messages as Array<{ content: Array<Record<string, unknown>> }>)[2];
    assert.deepEqual(turn.content[0], {
      toolResult: { toolUseId: 'tooluse_1', content: [{ text: '18C' }], status: 'success' },
    });
    assert.deepEqual(toConverseBody(base({ tools, toolChoice: { type: 'any' } })).body.toolConfig, {
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            inputSchema: { json: { type: 'object', properties: {} } },
            description: 'Weather',
          },
        },
      ],
      toolChoice: { any: {} },
    });
    assert.equal(toConverseBody(base({ tools, toolChoice: { type: 'none' } })).body.toolConfig, undefined);
  });

  it('synthesizes a toolConfig from history when the request offers no tools', () => {
    const body = toConverseBody(
      base({
        messages: [
          ir.user(ir.text('hi')),
          ir.assistant(ir.toolUse('t1', 'lookup', {})),
          ir.user(ir.toolResult('t1', [])),
        ],
      }),
    ).body;
    assert.deepEqual(body.toolConfig, {
      tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object', properties: {} } } } }],
    });
    const last = (body.messages as Array<{ content: unknown[] }>)[2];
    assert.deepEqual(last.content, [{ toolResult: { toolUseId: 't1', content: [{ json: {} }] } }]);
  });

  it('asks for JSON through the system prompt', () => {
    const body = toConverseBody(
      base({
        params: {
          responseFormat: {
            type: 'json_schema',
            name: 'x',
            schema: { type: 'object', properties: { a: { type: 'string' } } },
          },
        },
      }),
    ).body;
    const system = body.system as Array<{ text: string }>;
    assert.equal(system.length, 1);
    assert.match(system[0].text, /single valid JSON object/);
    assert.match(system[0].text, /\{"type":"object","properties":\{"a":\{"type":"string"\}\}\}/);
  });

  it('sends Claude thinking as an additional field, without sampling params or forced tools', () => {
    const body = toConverseBody(
      base({
        model: 'anthropic.claude-3-7-sonnet-20250219-v1:0',
        tools: [{ name: 't', inputSchema: { type: 'object' } }],
        toolChoice: { type: 'any' },
        params: { temperature: 1, topK: 3, thinking: { type: 'enabled', budgetTokens: 2048 } },
      }),
    ).body;
    assert.deepEqual(body.inferenceConfig, { maxTokens: 2048 + 4096 });
    assert.deepEqual(body.additionalModelRequestFields, { thinking: { type: 'enabled', budget_tokens: 2048 } });
    assert.deepEqual(body.toolConfig, {
      tools: [{ toolSpec: { name: 't', inputSchema: { json: { type: 'object' } } } }],
    });
    const plain = toConverseBody(base({ model: 'anthropic.claude-3-haiku-20240307-v1:0', params: { topK: 3 } })).body;
    assert.deepEqual(plain.additionalModelRequestFields, { top_k: 3 });
    const nova = toConverseBody(base({ params: { thinking: { type: 'enabled', budgetTokens: 100 }, topK: 3 } })).body;
    assert.equal(nova.additionalModelRequestFields, undefined);
  });
});

describe('toConverseBody warnings', () => {
  it('says the parameters Converse lacks, notes seed and parallel_tool_calls, clamps temperature to 1', () => {
    const { body, warnings } = toConverseBody(
      base({
        params: {
          presencePenalty: 1,
          logitBias: { '1': 1 },
          seed: 4,
          parallelToolCalls: true,
          topK: 20,
          temperature: 1.5,
          thinking: { type: 'enabled', budgetTokens: 1024 },
        },
      }),
    );
    assert.deepEqual(body.inferenceConfig, { temperature: 1 });
    assert.equal(body.additionalModelRequestFields, undefined);
    assert.deepEqual(warnings, [
      { code: 'dropped:seed', silent: true },
      { code: 'dropped:presence_penalty' },
      { code: 'dropped:logit_bias' },
      { code: 'dropped:parallel_tool_calls', silent: true },
      { code: 'dropped:thinking', silent: true },
      { code: 'clamped:temperature' },
      { code: 'dropped:top_k' },
    ]);
  });

  it('says each kind of dropped image once', () => {
    const url = ir.imageUrl('https://x/y.png');
    const { warnings } = toConverseBody(
      base({
        messages: [
          ir.user(url, url, ir.text('look')),
          ir.assistant(ir.toolUse('t1', 'shot', {})),
          ir.user(ir.toolResult('t1', [ir.text('x'), url])),
        ],
      }),
    );
    assert.deepEqual(warnings, [{ code: 'dropped:tool_result_image' }, { code: 'dropped:image_url' }]);
  });

  it('says nothing for a plain call', () => {
    assert.deepEqual(toConverseBody(base({ params: { maxTokens: 5, temperature: 0.3, stop: ['x'] } })).warnings, []);
  });
});
