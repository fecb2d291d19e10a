import assert from 'node:assert/strict';
import { test } from 'node:test';
import { text, thinking, toolUse } from '../../ir/test-kit.ts';
import { fixtureJson } from '../shared/fixtures.ts';
import { fromAnthropicResponse } from './decode-response.ts';

test('thinking with signature, redacted thinking, text and tool use; cache usage; server tools skipped', () => {
  assert.deepEqual(fromAnthropicResponse(fixtureJson('anthropic', 'message-thinking-tools.json')), {
    id: 'msg_01XYZ',
    model: 'claude-sonnet-4-5-20250929',
    content: [
      thinking('The user wants weather.', 'EqQBsig'),
      { type: 'redacted_thinking', data: 'ENCRYPTED' },
      text('Checking the weather.'),
      toolUse('toolu_01A', 'get_weather', { city: 'Paris' }),
    ],
    stopReason: 'tool_use',
    rawStopReason: 'tool_use',
    stopSequence: null,
    usage: { input: 25, output: 120, cacheRead: 300, cacheWrite: 10 },
  });
});

test('stop reasons: stop_sequence keeps the sequence, refusal -> content_filter, unknown -> end_turn', () => {
  const msg = (stop_reason: string, stop_sequence: string | null = null) =>
    fromAnthropicResponse({ id: 'm', model: 'c', content: [], stop_reason, stop_sequence, usage: {} });
  const seq = msg('stop_sequence', 'END');
  assert.equal(seq.stopReason, 'stop_sequence');
  assert.equal(seq.stopSequence, 'END');
  assert.equal(msg('refusal').stopReason, 'content_filter');
  assert.equal(msg('max_tokens').stopReason, 'max_tokens');
  assert.equal(msg('pause_turn').stopReason, 'end_turn');
  assert.equal(msg('something_new').rawStopReason, 'something_new');
  assert.deepEqual(msg('end_turn').usage, { input: 0, output: 0 });
});
