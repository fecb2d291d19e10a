import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ir from '../../../ir/test-kit.ts';
import { assertDecodeRejects } from '../../shared/test-kit.ts';
import { decodeBetaMessages, stripBetaForPassthrough } from './decode-request.ts';

const rejects = (body: unknown, message: RegExp, param?: string): void =>
  assertDecodeRejects(decodeBetaMessages, body, message, param);

const base = { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
const cc = { type: 'ephemeral' };

describe('decodeBetaMessages', () => {
  it('maps every supported block, tool and parameter', () => {
    const { ir: decoded, svc } = decodeBetaMessages({
      model: 'claude-x',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'Be brief.', cache_control: cc }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look', cache_control: { type: 'ephemeral', ttl: '1h' } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'image', source: { type: 'url', url: 'https://x.test/a.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Calling' },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [
                { type: 'text', text: 'sunny' },
                { type: 'image', source: { type: 'url', url: 'https://x.test/sun.png' } },
              ],
              is_error: false,
            },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'plain' },
          ],
        },
      ],
      tools: [{ name: 'weather', description: 'w', input_schema: { type: 'object' }, cache_control: cc }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 2048 },
      stop_sequences: ['END'],
      temperature: 1,
      top_p: 0.5,
      top_k: 40,
      stream: true,
      metadata: { user_id: 'u-1', trace_id: 't', conversation_id: 'c' },
      'svc:tags': { env: 'test' },
      'svc:trace': true,
    });
    assert.deepEqual(decoded, {
      model: 'claude-x',
      system: [ir.text('Be brief.', { type: 'ephemeral' })],
      messages: [
        ir.user(
          ir.text('Look', { type: 'ephemeral', ttl: '1h' }),
          ir.imageBase64('AAAA'),
          ir.imageUrl('https://x.test/a.png'),
        ),
        ir.assistant(
          ir.thinking('hmm', 'sig'),
          { type: 'redacted_thinking', data: 'opaque' },
          ir.text('Calling'),
          ir.toolUse('toolu_1', 'weather', { city: 'Paris' }),
        ),
        ir.user(
          ir.toolResult('toolu_1', [ir.text('sunny'), ir.imageUrl('https://x.test/sun.png')], false),
          ir.toolResult('toolu_2', 'plain'),
        ),
      ],
      tools: [
        { name: 'weather', description: 'w', inputSchema: { type: 'object' }, cacheControl: { type: 'ephemeral' } },
      ],
      toolChoice: { type: 'any' },
      params: {
        maxTokens: 1024,
        temperature: 1,
        topP: 0.5,
        topK: 40,
        stop: ['END'],
        thinking: { type: 'enabled', budgetTokens: 2048 },
        parallelToolCalls: false,
        user: 'u-1',
      },
      stream: true,
    });
    assert.deepEqual(svc, {
      tags: { env: 'test' },
      trace: true,
      endUser: 'u-1',
      metadata: { user_id: 'u-1', trace_id: 't', conversation_id: 'c' },
    });
  });

  it('maps the minimal request and the other tool_choice forms', () => {
    assert.deepEqual(
      decodeBetaMessages({ ...base, system: 'sys' }).ir,
      ir.chatRequest('claude-x', {
        system: [ir.text('sys')],
        messages: [ir.user(ir.text('hi'))],
        params: { maxTokens: 100 },
      }),
    );
    assert.deepEqual(decodeBetaMessages({ ...base, tool_choice: { type: 'auto' } }).ir.toolChoice, { type: 'auto' });
    assert.deepEqual(decodeBetaMessages({ ...base, tool_choice: { type: 'none' } }).ir.toolChoice, { type: 'none' });
    assert.deepEqual(decodeBetaMessages({ ...base, tool_choice: { type: 'tool', name: 'f' } }).ir.toolChoice, {
      type: 'tool',
      name: 'f',
    });
    assert.equal(decodeBetaMessages({ ...base, thinking: { type: 'disabled' } }).ir.params.thinking, undefined);
    assert.equal(decodeBetaMessages({ ...base, 'svc:end_user': 'x', metadata: { user_id: 'y' } }).svc.endUser, 'x');
  });

  it('rejects invalid requests with the field named', () => {
    rejects({ ...base, max_tokens: 0 }, /^max_tokens: must be >= 1, got 0$/, 'max_tokens');
    rejects({ ...base, max_tokens: undefined }, /^max_tokens: is required$/);
    rejects({ ...base, max_tokens: 1.5 }, /^max_tokens: expected an integer/);
    rejects({ ...base, messages: [] }, /^messages: must contain at least one message$/);
    rejects(
      { ...base, messages: [{ role: 'system', content: 'x' }] },
      /^messages\[0\]\.role: expected "user" or "assistant"/,
    );
    rejects(
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'foo' }] },
        ],
      },
      /^messages\[1\]\.content\[0\]\.type: unknown block type "foo"$/,
      'messages[1].content[0].type',
    );
    rejects(
      { ...base, messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] },
      /document blocks are not supported/,
    );
    rejects(
      { ...base, tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
      /^tools\[0\]\.type: server tool/,
    );
    rejects({ ...base, tools: [{ name: 'f' }] }, /^tools\[0\]\.input_schema: expected an object/);
    rejects({ ...base, tool_choice: { type: 'required' } }, /^tool_choice\.type:/);
    rejects({ ...base, thinking: { type: 'enabled' } }, /^thinking\.budget_tokens: is required/);
    rejects({ ...base, temperature: 1.5 }, /^temperature: must be between 0 and 1/);
    rejects({ ...base, metadata: { user_id: 5 } }, /^metadata\.user_id: expected a string/);
    rejects(
      { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] },
      /^messages\[0\]\.content\[0\]\.source\.type: expected "base64" or "url"/,
    );
    rejects({ ...base, model: '' }, /^model: is required/);
  });
});

describe('stripBetaForPassthrough', () => {
  it('rewrites model, drops metadata and svc keys, keeps the rest byte-identical', () => {
    const sent =
      '{"model":"@slug","max_tokens":5,"metadata":{"user_id":"u"},"svc:tags":{"a":"b"},"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"output_config":{"effort":"low"},"thinking":{"type":"adaptive"}}';
    assert.equal(
      stripBetaForPassthrough(JSON.parse(sent), 'claude-sonnet-4-5'),
      '{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"output_config":{"effort":"low"},"thinking":{"type":"adaptive"}}',
    );
  });
});
