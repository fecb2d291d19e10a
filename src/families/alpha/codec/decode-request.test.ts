import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assistant,
  chatRequest,
  imageBase64,
  imageUrl,
  text,
  toolResult,
  toolUse,
  user,
} from '../../../ir/test-kit.ts';
import { assertDecodeRejects } from '../../shared/test-kit.ts';
import { decodeAlphaChat } from './decode-request.ts';

const rejects = (body: unknown, message: RegExp, param?: string): void =>
  assertDecodeRejects(decodeAlphaChat, body, message, param);

const base = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

describe('decodeAlphaChat', () => {
  it('maps a full conversation with tools to the IR', () => {
    const { ir, svc, includeUsage } = decodeAlphaChat({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            { type: 'image_url', image_url: { url: 'https://x.test/a.jpg', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        {
          role: 'tool',
          tool_call_id: 'call_2',
          content: [
            { type: 'text', text: 'noon' },
            { type: 'image_url', image_url: { url: 'https://x.test/clock.png' } },
          ],
        },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'w', parameters: { type: 'object' }, strict: true },
        },
        { type: 'function', function: { name: 'time' } },
      ],
      tool_choice: 'required',
      max_completion_tokens: 100,
      max_tokens: 5,
      temperature: 0.5,
      top_p: 0.9,
      stop: 'END',
      seed: 7,
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      parallel_tool_calls: false,
      user: 'u-1',
      top_logprobs: 20,
      logprobs: true,
      stream: true,
      stream_options: { include_usage: true },
      'svc:tags': { team: 'a' },
      extra_body: { 'svc:end_user': 'eu', 'svc:cache': { skip: true }, 'svc:trace': true },
      metadata: { trace_id: 't1' },
    });
    assert.deepEqual(ir, {
      model: 'gpt-4o',
      system: [text('Be brief.'), text('Use tools.')],
      messages: [
        user(text('Weather?'), imageBase64('AAAA'), imageUrl('https://x.test/a.jpg')),
        assistant(toolUse('call_1', 'weather', { city: 'Paris' }), toolUse('call_2', 'time', {})),
        user(toolResult('call_1', 'sunny'), toolResult('call_2', 'noon')),
        user(text('thanks')),
      ],
      tools: [
        { name: 'weather', description: 'w', inputSchema: { type: 'object' } },
        { name: 'time', inputSchema: { type: 'object', properties: {} } },
      ],
      toolChoice: { type: 'any' },
      params: {
        maxTokens: 100,
        temperature: 0.5,
        topP: 0.9,
        stop: ['END'],
        seed: 7,
        responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
        parallelToolCalls: false,
        user: 'u-1',
      },
      stream: true,
    });
    assert.deepEqual(svc, {
      tags: { team: 'a' },
      endUser: 'eu',
      cacheSkip: true,
      trace: true,
      metadata: { trace_id: 't1' },
    });
    assert.equal(includeUsage, true);
  });

  it('maps the minimal request and the tool_choice forms', () => {
    const { ir, svc, includeUsage } = decodeAlphaChat(base);
    assert.deepEqual(ir, chatRequest('gpt-4o', { messages: [user(text('hi'))] }));
    assert.deepEqual(svc, { tags: {} });
    assert.equal(includeUsage, false);
    assert.deepEqual(decodeAlphaChat({ ...base, tool_choice: 'auto' }).ir.toolChoice, { type: 'auto' });
    assert.deepEqual(decodeAlphaChat({ ...base, tool_choice: 'none' }).ir.toolChoice, { type: 'none' });
    assert.deepEqual(
      decodeAlphaChat({ ...base, tool_choice: { type: 'function', function: { name: 'f' } } }).ir.toolChoice,
      { type: 'tool', name: 'f' },
    );
    assert.deepEqual(decodeAlphaChat({ ...base, stop: ['a', 'b'], max_tokens: 9 }).ir.params, {
      stop: ['a', 'b'],
      maxTokens: 9,
    });
    assert.deepEqual(decodeAlphaChat({ ...base, response_format: { type: 'json_object' } }).ir.params, {
      responseFormat: { type: 'json_object' },
    });
  });

  it('keeps assistant text beside tool calls and accepts legacy functions', () => {
    const { ir } = decodeAlphaChat({
      model: 'm',
      functions: [{ name: 'f', parameters: { type: 'object', properties: {} } }],
      function_call: { name: 'f' },
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'calling', function_call: { name: 'f', arguments: '{"a":1}' } },
        { role: 'function', name: 'f', content: 'done' },
      ],
    });
    assert.deepEqual(ir.messages.slice(1), [
      assistant(text('calling'), toolUse('call_legacy_1', 'f', { a: 1 })),
      user(toolResult('call_legacy_1', 'done')),
    ]);
    assert.deepEqual(ir.tools, [{ name: 'f', inputSchema: { type: 'object', properties: {} } }]);
    assert.deepEqual(ir.toolChoice, { type: 'tool', name: 'f' });
  });

  it('rejects invalid requests with the field named', () => {
    rejects(null, /request body must be a JSON object/);
    rejects({ messages: [] }, /^model: is required/, 'model');
    rejects({ model: 'm', messages: [] }, /^messages: must contain at least one message$/, 'messages');
    rejects({ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, /messages\[0\]\.role: unknown role "robot"/);
    rejects(
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'foo' }] }] },
      /^messages\[0\]\.content\[0\]\.type: unknown content part type "foo"$/,
      'messages[0].content[0].type',
    );
    rejects(
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] },
      /"input_audio" is not supported/,
    );
    rejects({ ...base, top_logprobs: 21 }, /^top_logprobs: must be between 0 and 20, got 21$/, 'top_logprobs');
    rejects({ ...base, top_logprobs: -1 }, /top_logprobs: must be between 0 and 20/);
    rejects({ ...base, max_tokens: 0 }, /^max_tokens: must be >= 1, got 0$/);
    rejects({ ...base, temperature: 3 }, /^temperature: must be between 0 and 2/);
    rejects({ ...base, tool_choice: 'always' }, /^tool_choice: expected "auto"/);
    rejects({ ...base, tools: [{ type: 'web_search' }] }, /^tools\[0\]\.type: only "function" tools/);
    rejects({ ...base, response_format: { type: 'yaml' } }, /^response_format\.type:/);
    rejects(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
          },
        ],
      },
      /^messages\[1\]\.tool_calls\[0\]\.function\.arguments: is not valid JSON$/,
      'messages[1].tool_calls[0].function.arguments',
    );
    rejects(
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x' } }] }] },
      /image URL must be an http\(s\) URL or a base64 data URL/,
    );
    rejects({ ...base, 'svc:tags': { a: 1 } }, /^svc:tags\.a: tag values must be strings/);
    rejects({ ...base, extra_body: { 'svc:trace': 'yes' } }, /^extra_body\.svc:trace: expected a boolean/);
    rejects({ ...base, metadata: 'x' }, /^metadata: expected an object/);
    rejects(
      { model: 'm', messages: [{ role: 'tool', content: 'x' }] },
      /^messages\[0\]\.tool_call_id: expected a string/,
    );
  });
});
