import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ir from '../../ir/test-kit.ts';
import type { ChatRequest } from '../../ir/types.ts';
import { toGeminiBody } from './encode-request.ts';
import { toGeminiSchema } from './openapi-schema.ts';

const base = (over: Partial<ChatRequest>): ChatRequest => ir.chatRequest('gemini-2.5-flash', over);

describe('toGeminiBody', () => {
  it('maps system, roles, images, tool calls and tool results (name from the earlier call)', () => {
    const body = toGeminiBody(
      base({
        system: [ir.text('Be brief.')],
        messages: [
          ir.user(ir.text('Weather?'), ir.imageBase64('AAAA'), ir.imageUrl('https://example.com/cat.webp?x=1')),
          ir.assistant(ir.thinking('', 'sig-1'), ir.toolUse('call_1', 'get_weather', { city: 'Paris' })),
          ir.user(ir.text('thanks'), ir.toolResult('call_1', '18C')),
          ir.user(ir.text('and?')),
        ],
      }),
    ).body;
    assert.deepEqual(body, {
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Weather?' },
            { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
            { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp?x=1' } },
          ],
        },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-1' }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { content: '18C' } } },
            { text: 'thanks' },
            { text: 'and?' },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    });
  });

  it('echoes thought text with its signature and adds the skip placeholder for gemini-3 calls', () => {
    const body = toGeminiBody(
      base({
        model: 'gemini-3-pro-preview',
        messages: [
          ir.user(ir.text('hi')),
          ir.assistant(ir.thinking('hmm', 's'), ir.toolUse('c', 'f', 'raw')),
          ir.user(ir.toolResult('c', [], true)),
        ],
      }),
    ).body;
    assert.deepEqual(body.contents, [
      { role: 'user', parts: [{ text: 'hi' }] },
      {
        role: 'model',
        parts: [
          { text: 'hmm', thought: true, thoughtSignature: 's' },
          { functionCall: { name: 'f', args: { value: 'raw' } }, thoughtSignature: 'skip_thought_signature_validator' },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { error: '' } } }] },
    ]);
  });

  it('maps tools, tool choice and generation config', () => {
    const body = toGeminiBody(
      base({
        tools: [
          {
            name: 'get_weather',
            description: 'Weather by city',
            inputSchema: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              additionalProperties: false,
              properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f'] } },
              required: ['city'],
            },
          },
          { name: 'now', inputSchema: { type: 'object', properties: {} } },
        ],
        toolChoice: { type: 'tool', name: 'get_weather' },
        params: {
          maxTokens: 100,
          temperature: 0.2,
          topP: 0.9,
          topK: 40,
          stop: ['END'],
          seed: 7,
          user: 'u-1',
          parallelToolCalls: false,
          thinking: { type: 'enabled', budgetTokens: 512 },
          responseFormat: { type: 'json_object' },
        },
      }),
    ).body;
    assert.deepEqual(body.tools, [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather by city',
            parameters: {
              type: 'OBJECT',
              properties: { city: { type: 'STRING' }, unit: { type: 'STRING', enum: ['c', 'f'], nullable: true } },
              required: ['city'],
            },
          },
          { name: 'now' },
        ],
      },
    ]);
    assert.deepEqual(body.toolConfig, {
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
    assert.deepEqual(body.generationConfig, {
      maxOutputTokens: 100,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      seed: 7,
      responseMimeType: 'application/json',
      thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
    });
  });

  it('maps tool choices auto/any/none', () => {
    const tools = [{ name: 't', inputSchema: { type: 'object' } }];
    for (const [type, mode] of [
      ['auto', 'AUTO'],
      ['any', 'ANY'],
      ['none', 'NONE'],
    ] as const) {
      const body = toGeminiBody(base({ tools, toolChoice: { type } })).body;
      assert.deepEqual(body.toolConfig, { functionCallingConfig: { mode } });
    }
  });

  it('sends json_schema as responseSchema', () => {
    const body = toGeminiBody(
      base({
        params: {
          responseFormat: {
            type: 'json_schema',
            name: 'answer',
            schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
          },
        },
      }),
    ).body;
    assert.deepEqual(body.generationConfig, {
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { n: { type: 'INTEGER' } }, required: ['n'] },
    });
  });
});

describe('toGeminiSchema', () => {
  it('inlines refs, folds nullable unions, turns const into enum and drops unsupported keys', () => {
    const schema = toGeminiSchema({
      type: 'object',
      $defs: { Pt: { type: 'object', properties: { x: { type: 'number', format: 'double' } } } },
      properties: {
        p: { $ref: '#/$defs/Pt' },
        kind: { const: 'a' },
        maybe: { anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }] },
        list: { type: 'array', items: { type: 'integer' }, minItems: 1, uniqueItems: true },
        either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        both: {
          allOf: [
            { properties: { a: { type: 'string' } }, required: ['a'] },
            { properties: { b: { type: 'boolean' } } },
          ],
        },
      },
    });
    assert.deepEqual(schema, {
      type: 'OBJECT',
      properties: {
        p: { type: 'OBJECT', properties: { x: { type: 'NUMBER', format: 'double' } } },
        kind: { enum: ['a'], type: 'STRING' },
        maybe: { type: 'STRING', nullable: true },
        list: { type: 'ARRAY', minItems: 1, items: { type: 'INTEGER' } },
        either: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
        both: {
          properties: { a: { type: 'STRING' }, b: { type: 'BOOLEAN' } },
          required: ['a'],
          type: 'OBJECT',
        },
      },
    });
  });

  it('stops inlining a self-referencing schema', () => {
    const schema = toGeminiSchema({
      type: 'object',
      properties: { node: { $ref: '#' } },
    });
    assert.equal(schema.type, 'OBJECT');
  });
});

describe('toGeminiBody warnings', () => {
  it('carries penalties and seed, says logit_bias, notes parallel_tool_calls, clamps nothing up to 2', () => {
    const { body, warnings } = toGeminiBody(
      base({
        params: {
          presencePenalty: 0.5,
          frequencyPenalty: 0.2,
          seed: 3,
          logitBias: { '1': 5 },
          parallelToolCalls: false,
          temperature: 2,
          user: 'u-1',
        },
      }),
    );
    assert.deepEqual(body.generationConfig, { temperature: 2, seed: 3, presencePenalty: 0.5, frequencyPenalty: 0.2 });
    assert.deepEqual(warnings, [{ code: 'dropped:logit_bias' }, { code: 'dropped:parallel_tool_calls', silent: true }]);
  });

  it('says an image dropped from a tool result', () => {
    const { warnings } = toGeminiBody(base({ messages: [...ir.IMAGE_TOOL_RESULT] }));
    assert.deepEqual(warnings, [{ code: 'dropped:tool_result_image' }]);
  });
});
