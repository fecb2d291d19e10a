import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromUpstream } from '../../../errors/gateway-error.ts';
import { text, thinking, toolUse } from '../../../ir/test-kit.ts';
import type { ChatResponse } from '../../../ir/types.ts';
import { encodeBetaMessage } from './encode-response.ts';
import { betaErrorBody } from './error-body.ts';
import { betaStopReason } from './stop-reason.ts';

describe('encodeBetaMessage', () => {
  it('puts thinking first, drops empty text and reports cache usage', () => {
    const res: ChatResponse = {
      id: 'chatcmpl-1',
      model: 'gpt-4o',
      content: [
        text(''),
        text('Checking'),
        thinking('plan', 'sig'),
        toolUse('call_1', 'weather', { city: 'Paris' }),
        { type: 'redacted_thinking', data: 'opaque' },
      ],
      stopReason: 'tool_use',
      rawStopReason: 'tool_calls',
      usage: { input: 10, output: 4, cacheRead: 2, cacheWrite: 1 },
    };
    assert.deepEqual(encodeBetaMessage(res, { id: 'msg_1', model: 'gw' }), {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'gw',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Checking' },
        { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 2, cache_creation_input_tokens: 1 },
    });
  });

  it('keeps the stop sequence and omits unknown cache counts', () => {
    const res: ChatResponse = {
      id: 'x',
      model: 'm',
      content: [text('a')],
      stopReason: 'stop_sequence',
      stopSequence: 'END',
      usage: { input: 1, output: 1 },
    };
    const out = encodeBetaMessage(res, { id: 'msg_2', model: 'm' });
    assert.equal(out.stop_reason, 'stop_sequence');
    assert.equal(out.stop_sequence, 'END');
    assert.deepEqual(out.usage, { input_tokens: 1, output_tokens: 1 });
  });

  it('maps stop reasons and error statuses', () => {
    assert.deepEqual(
      (['end_turn', 'stop_sequence', 'max_tokens', 'tool_use', 'content_filter', 'error'] as const).map((s) =>
        betaStopReason(s),
      ),
      ['end_turn', 'stop_sequence', 'max_tokens', 'tool_use', 'refusal', 'end_turn'],
    );
    assert.equal(betaStopReason('end_turn', 'pause_turn'), 'pause_turn');
    assert.equal(betaStopReason('end_turn', 'stop'), 'end_turn');
    const typeOf = (status: number) =>
      betaErrorBody(fromUpstream({ status, kind: 'server', message: 'm', retryable: false })).error;
    assert.deepEqual(
      [400, 401, 403, 404, 413, 429, 500].map((s) => (typeOf(s) as { type: string }).type),
      [
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'not_found_error',
        'request_too_large',
        'rate_limit_error',
        'api_error',
      ],
    );
    assert.deepEqual(
      betaErrorBody(fromUpstream({ status: 503, kind: 'overloaded', message: 'busy', retryable: true })),
      {
        type: 'error',
        error: { type: 'overloaded_error', message: 'busy' },
      },
    );
  });
});
