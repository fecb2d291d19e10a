// Complete answers in IR form covering every block kind and stop reason a stored answer can have:
// what stream replay is tested with, in the IR unit tests and through the official SDKs.
import type { ChatResponse } from '../../src/ir/types.ts';

// A surrogate pair straddles the first 64-unit boundary, so a naive split would cut it in half.
export const LONG_TEXT = `${'a'.repeat(63)}😀 ${'Grüße aus Zürich 🇨🇭, '.repeat(12)}done 👍🏽`;

export const ANSWER_BASE = {
  id: 'msg_1',
  model: 'up-model',
  stopReason: 'end_turn' as const,
  usage: { input: 12, output: 7 },
};

export const ANSWER_SAMPLES: Record<string, ChatResponse> = {
  'plain text': { ...ANSWER_BASE, content: [{ type: 'text', text: 'Paris is the capital of France.' }] },
  'long text with emoji': { ...ANSWER_BASE, content: [{ type: 'text', text: LONG_TEXT }], stopSequence: null },
  'text and two tool calls': {
    ...ANSWER_BASE,
    stopReason: 'tool_use',
    rawStopReason: 'tool_calls',
    content: [
      { type: 'text', text: 'Let me look both up.' },
      {
        type: 'tool_use',
        id: 'toolu_a',
        name: 'weather',
        input: { city: 'Paris', when: { day: 'today', hours: [9, 12, 18] }, metric: true, note: null },
      },
      { type: 'tool_use', id: 'toolu_b', name: 'time', input: {} },
    ],
  },
  'thinking with signature': {
    ...ANSWER_BASE,
    content: [
      {
        type: 'thinking',
        thinking: `The user asks about Paris. ${'Consider the facts. '.repeat(6)}`,
        signature: 'sig==',
      },
      { type: 'text', text: 'Paris.' },
    ],
  },
  'thinking without signature': {
    ...ANSWER_BASE,
    content: [
      { type: 'thinking', thinking: 'short' },
      { type: 'text', text: 'ok' },
    ],
  },
  'redacted thinking': {
    ...ANSWER_BASE,
    content: [
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
      { type: 'text', text: 'Done.' },
    ],
  },
  'max tokens': {
    ...ANSWER_BASE,
    stopReason: 'max_tokens',
    rawStopReason: 'length',
    content: [{ type: 'text', text: 'The answer is cut' }],
  },
  'stop sequence': {
    ...ANSWER_BASE,
    stopReason: 'stop_sequence',
    rawStopReason: 'stop_sequence',
    stopSequence: 'END',
    content: [{ type: 'text', text: 'One, two' }],
  },
  'prompt cache usage': {
    ...ANSWER_BASE,
    usage: { input: 3, output: 9, cacheRead: 1200, cacheWrite: 40 },
    content: [{ type: 'text', text: 'From the cache.' }],
  },
  'empty answer': { ...ANSWER_BASE, content: [] },
};
