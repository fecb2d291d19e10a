import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromUpstream, GatewayError } from '../../../errors/gateway-error.ts';
import { text, thinking, toolUse } from '../../../ir/test-kit.ts';
import type { ChatResponse } from '../../../ir/types.ts';
import { encodeAlphaChat } from './encode-response.ts';
import { alphaErrorBody } from './error-body.ts';
import { alphaFinishReason } from './finish-reason.ts';

const opts = { id: 'chatcmpl-1', model: 'claude-x', created: 1700000000 };

describe('encodeAlphaChat', () => {
  it('joins text, drops thinking and reports cached tokens inside prompt_tokens', () => {
    const res: ChatResponse = {
      id: 'msg_1',
      model: 'claude-x-2025',
      content: [thinking('hmm', 's'), text('Hello '), text('world')],
      stopReason: 'end_turn',
      usage: { input: 10, output: 5, cacheRead: 100, cacheWrite: 3 },
    };
    assert.deepEqual(encodeAlphaChat(res, opts), {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'claude-x',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello world', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 113,
        completion_tokens: 5,
        total_tokens: 118,
        prompt_tokens_details: { cached_tokens: 100 },
      },
    });
  });

  it('emits tool calls with null content when there is no text', () => {
    const res: ChatResponse = {
      id: 'x',
      model: 'm',
      content: [
        text(''),
        toolUse('toolu_1', 'weather', { city: 'Paris' }),
        { type: 'tool_use', id: 'toolu_2', name: 'raw', input: '{not json' },
      ],
      stopReason: 'tool_use',
      usage: { input: 1, output: 2 },
    };
    assert.deepEqual(encodeAlphaChat(res, opts).choices, [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'raw', arguments: '{not json' } },
          ],
          refusal: null,
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
    assert.deepEqual(encodeAlphaChat(res, opts).usage, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
  });

  it('maps every stop reason and error status', () => {
    assert.deepEqual(
      (['end_turn', 'stop_sequence', 'max_tokens', 'tool_use', 'content_filter', 'error'] as const).map(
        alphaFinishReason,
      ),
      ['stop', 'stop', 'length', 'tool_calls', 'content_filter', 'stop'],
    );
    assert.deepEqual(
      alphaErrorBody(new GatewayError('routing_config_not_found', { vars: { slug: 'x' }, param: 'model' })),
      {
        error: {
          message: 'no routing config with slug "x"',
          type: 'not_found_error',
          param: 'model',
          code: 'routing_config_not_found',
        },
      },
    );
    assert.deepEqual(
      alphaErrorBody(fromUpstream({ status: 429, kind: 'rate_limit', message: 'slow down', retryable: true })),
      {
        error: { message: 'slow down', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
      },
    );
  });
});
