import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlaceholderBook, placeholderHold, restoreText } from '../guardrails/placeholders.ts';
import { RestoringStream } from './restore-stream.ts';

function restoring(): RestoringStream {
  const book = new PlaceholderBook();
  book.placeholderFor('EMAIL', 'jane@example.com', true);
  book.placeholderFor('NAME', 'Jo "J" Doe', true);
  book.placeholderFor('PHONE', '+1 202 555 0100', false);
  return new RestoringStream({ text: (t, inJson) => restoreText(t, book, inJson), hold: placeholderHold });
}

const sse = (type: string, data: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Feeds `text` in pieces of `size` bytes; the events the caller reads, parsed. */
function run(text: string, size: number): Array<Record<string, unknown>> {
  const s = restoring();
  const bytes = new TextEncoder().encode(text);
  const decoder = new TextDecoder();
  let out = '';
  for (let i = 0; i < bytes.length; i += size)
    out += decoder.decode(s.push(bytes.slice(i, i + size)), { stream: true });
  out += decoder.decode(s.end());
  return out
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
const text = (events: Array<Record<string, unknown>>, type: string): string =>
  events
    .filter((e) => e.type === type)
    .map((e) => String(e.delta))
    .join('');

test('a placeholder split across deltas and across reads is restored; others stay', () => {
  const upstream =
    sse('response.output_text.delta', { ...at, delta: 'Mail [EM', sequence_number: 1 }) +
    sse('response.output_text.delta', { ...at, delta: 'AIL_1] or [PHO', sequence_number: 2 }) +
    sse('response.output_text.delta', { ...at, delta: 'NE_1] now', sequence_number: 3 }) +
    sse('response.output_text.done', { ...at, text: 'Mail [EMAIL_1] or [PHONE_1] now', sequence_number: 4 });
  for (const size of [1, 7, 1000]) {
    const events = run(upstream, size);
    assert.equal(text(events, 'response.output_text.delta'), 'Mail jane@example.com or [PHONE_1] now');
    assert.equal(events.at(-1)?.text, 'Mail jane@example.com or [PHONE_1] now');
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      [1, 2, 3, 4],
    );
  }
});

test('text that only looked like a placeholder goes out before the next event', () => {
  const events = run(
    sse('response.output_text.delta', { ...at, delta: 'see [A', sequence_number: 1 }) +
      sse('response.output_text.done', { ...at, text: 'see [A', sequence_number: 2 }),
    1000,
  );
  assert.deepEqual(
    events.map((e) => [e.type, e.delta ?? e.text]),
    [
      ['response.output_text.delta', 'see '],
      ['response.output_text.delta', '[A'],
      ['response.output_text.done', 'see [A'],
    ],
  );
});

test('tool-call arguments get the original escaped as JSON; a broken-off stream sends what it kept', () => {
  const call = { item_id: 'fc_1', output_index: 0 };
  const events = run(
    sse('response.function_call_arguments.delta', { ...call, delta: '{"who":"[NAME_1]","to":"[EMAIL' }),
    5,
  );
  assert.equal(text(events, 'response.function_call_arguments.delta'), '{"who":"Jo \\"J\\" Doe","to":"[EMAIL');
  assert.deepEqual(JSON.parse(`${text(events, 'response.function_call_arguments.delta')}_1]"}`), {
    who: 'Jo "J" Doe',
    to: '[EMAIL_1]',
  });
});
