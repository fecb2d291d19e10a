import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlaceholderBook, placeholderHold, restoreText } from '../guardrails/placeholders.ts';
import { RestoringStream, restoreJsonText } from './restore-stream.ts';

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

test('a done event and a whole answer: an original in tool-call arguments is escaped for the arguments too', () => {
  const args = '{"who":"[NAME_1]","to":"[EMAIL_1]","path":"C:\\\\x"}';
  const item = { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'send', arguments: args };
  const upstream =
    sse('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 0, arguments: args }) +
    sse('response.output_item.done', { output_index: 0, item }) +
    sse('response.output_text.done', { ...at, text: 'sent to [NAME_1]' });
  const want = { who: 'Jo "J" Doe', to: 'jane@example.com', path: 'C:\\x' };
  for (const size of [3, 1000]) {
    const events = run(upstream, size);
    assert.deepEqual(JSON.parse(String(events[0].arguments)), want);
    assert.deepEqual(JSON.parse(String((events[1].item as Record<string, unknown>).arguments)), want);
    assert.equal(events[2].text, 'sent to Jo "J" Doe');
  }
  const book = new PlaceholderBook();
  book.placeholderFor('NAME', 'Jo "J" Doe', true);
  const restore = { text: (t: string, inJson: boolean) => restoreText(t, book, inJson), hold: placeholderHold };
  const answer = JSON.stringify({ output: [item, { type: 'message', content: [{ text: 'hi [NAME_1]' }] }] });
  const restored = JSON.parse(restoreJsonText(answer, restore)) as {
    output: [{ arguments: string }, { content: [{ text: string }] }];
  };
  assert.deepEqual(JSON.parse(restored.output[0].arguments), { ...want, to: '[EMAIL_1]' });
  assert.equal(restored.output[1].content[0].text, 'hi Jo "J" Doe');
  const untouched = '{"a": 1.0, "b":"[PHONE_1]"}';
  assert.equal(restoreJsonText(untouched, restore), untouched, 'nothing to restore: the same bytes');
});
