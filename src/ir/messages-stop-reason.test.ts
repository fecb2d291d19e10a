import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messagesStopReason } from './messages-stop-reason.ts';

test('each messages-wire stop reason as the IR reads it, unknown and missing ones as end_turn', () => {
  const cases: Array<[string | null | undefined, string]> = [
    ['end_turn', 'end_turn'],
    ['max_tokens', 'max_tokens'],
    ['model_context_window_exceeded', 'max_tokens'],
    ['stop_sequence', 'stop_sequence'],
    ['tool_use', 'tool_use'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'end_turn'],
    ['a_reason_added_later', 'end_turn'],
    [null, 'end_turn'],
    [undefined, 'end_turn'],
  ];
  for (const [raw, ir] of cases) assert.equal(messagesStopReason(raw), ir, String(raw));
});
