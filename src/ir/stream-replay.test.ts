// responseEvents must yield streams that every encoder accepts (the StreamEvent invariants) and that
// fold back into the very answer they came from, since a cache hit is served from exactly this path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANSWER_BASE, ANSWER_SAMPLES, LONG_TEXT } from '../../test/helpers/ir-samples.ts';
import { ResponseAssembler } from './stream-assembler.ts';
import { responseEvents, splitText } from './stream-replay.ts';
import type { ChatResponse, StreamEvent } from './types.ts';

/** Checks the StreamEvent contract the encoders rely on; returns the block kinds in index order. */
function assertWellFormed(events: StreamEvent[]): string[] {
  assert.equal(events[0]?.type, 'start', 'a stream begins with start');
  assert.equal(events.at(-1)?.type, 'stop', 'a stream ends with stop');
  const kinds: string[] = [];
  let open: number | null = null;
  for (const [i, ev] of events.entries()) {
    if (i > 0) assert.notEqual(ev.type, 'start', 'start comes once');
    if (i < events.length - 1) assert.notEqual(ev.type, 'stop', 'stop comes last');
    switch (ev.type) {
      case 'block_start':
        assert.equal(open, null, `block ${ev.index} starts while ${open} is open`);
        assert.equal(ev.index, kinds.length, 'indexes are contiguous from 0');
        kinds.push(ev.block.type);
        open = ev.index;
        break;
      case 'text_delta':
      case 'thinking_delta':
      case 'signature_delta':
      case 'tool_args_delta':
        assert.equal(ev.index, open, `${ev.type} goes to the open block`);
        break;
      case 'block_stop':
        assert.equal(ev.index, open, 'block_stop closes the open block');
        open = null;
        break;
      case 'usage':
      case 'stop':
        assert.equal(open, null, `${ev.type} comes after every block closed`);
        break;
      default:
        break;
    }
  }
  return kinds;
}

/** String.prototype.isWellFormed is newer than the ES2023 lib this repo compiles against. */
function wellFormed(s: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

function assemble(events: StreamEvent[]): ChatResponse | undefined {
  const asm = new ResponseAssembler();
  for (const ev of events) asm.push(ev);
  return asm.result();
}

for (const [name, res] of Object.entries(ANSWER_SAMPLES)) {
  test(`round trip: ${name}`, () => {
    const events = responseEvents(res);
    const kinds = assertWellFormed(events);
    assert.deepEqual(
      kinds,
      res.content.map((b) => b.type),
    );
    assert.deepEqual(assemble(events), res);
  });
}

test('start carries the prompt-side usage, the final usage event the whole of it', () => {
  const events = responseEvents(ANSWER_SAMPLES['prompt cache usage']);
  assert.deepEqual(events[0], {
    type: 'start',
    id: 'msg_1',
    model: 'up-model',
    usage: { input: 3, cacheRead: 1200, cacheWrite: 40 },
  });
  assert.deepEqual(events.at(-2), { type: 'usage', usage: { input: 3, output: 9, cacheRead: 1200, cacheWrite: 40 } });
  assert.deepEqual(responseEvents(ANSWER_SAMPLES['plain text'])[0], {
    type: 'start',
    id: 'msg_1',
    model: 'up-model',
    usage: { input: 12 },
  });
});

test('stop repeats the stop reason, raw reason and sequence', () => {
  assert.deepEqual(responseEvents(ANSWER_SAMPLES['stop sequence']).at(-1), {
    type: 'stop',
    stopReason: 'stop_sequence',
    rawStopReason: 'stop_sequence',
    stopSequence: 'END',
  });
  assert.deepEqual(responseEvents(ANSWER_SAMPLES['plain text']).at(-1), { type: 'stop', stopReason: 'end_turn' });
});

test('long text arrives as several deltas, no surrogate pair split', () => {
  const deltas = responseEvents(ANSWER_SAMPLES['long text with emoji']).filter((e) => e.type === 'text_delta');
  assert.ok(deltas.length > 3, `expected several deltas, got ${deltas.length}`);
  for (const d of deltas) {
    assert.ok(d.text.length > 0 && d.text.length <= 64, `delta of ${d.text.length} units`);
    assert.ok(wellFormed(d.text), `delta ${JSON.stringify(d.text)} holds a lone surrogate`);
  }
  assert.equal(deltas.map((d) => d.text).join(''), LONG_TEXT);
});

test('splitText keeps pairs whole at any size', () => {
  const text = '😀x😀😀y';
  for (let size = 1; size <= text.length; size++) {
    const parts = splitText(text, size);
    assert.equal(parts.join(''), text);
    for (const p of parts) assert.ok(wellFormed(p) && p.length > 0, `size ${size}: ${JSON.stringify(parts)}`);
  }
  assert.deepEqual(splitText(''), []);
  assert.deepEqual(splitText('abc'), ['abc']);
});

test('thinking: text deltas then the signature; tool calls: the whole input as one fragment', () => {
  const thinking = responseEvents(ANSWER_SAMPLES['thinking with signature']).filter(
    (e) => 'index' in e && e.index === 0,
  );
  // Consecutive repeats collapsed: the thinking text spans several deltas.
  const shape = thinking.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);
  assert.deepEqual(shape, ['block_start', 'thinking_delta', 'signature_delta', 'block_stop']);
  const args = responseEvents(ANSWER_SAMPLES['text and two tool calls']).filter((e) => e.type === 'tool_args_delta');
  assert.deepEqual(
    args.map((e) => [e.index, e.partialJson]),
    [
      [1, '{"city":"Paris","when":{"day":"today","hours":[9,12,18]},"metric":true,"note":null}'],
      [2, '{}'],
    ],
  );
});

test('redacted thinking has a header and no deltas', () => {
  const events = responseEvents(ANSWER_SAMPLES['redacted thinking']).filter((e) => 'index' in e && e.index === 0);
  assert.deepEqual(events, [
    { type: 'block_start', index: 0, block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' } },
    { type: 'block_stop', index: 0 },
  ]);
});

test('image and tool_result blocks are skipped without leaving an index gap', () => {
  const res: ChatResponse = {
    ...ANSWER_BASE,
    content: [
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } },
      { type: 'text', text: 'a' },
      { type: 'tool_result', toolUseId: 'toolu_x', content: [] },
      { type: 'text', text: 'b' },
    ],
  };
  const events = responseEvents(res);
  assert.deepEqual(assertWellFormed(events), ['text', 'text']);
  assert.deepEqual(assemble(events)?.content, [
    { type: 'text', text: 'a' },
    { type: 'text', text: 'b' },
  ]);
});

test('an empty text block still opens and closes', () => {
  const res: ChatResponse = { ...ANSWER_BASE, content: [{ type: 'text', text: '' }] };
  const events = responseEvents(res);
  assert.deepEqual(events.slice(1, 3), [
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_stop', index: 0 },
  ]);
  assert.deepEqual(assemble(events), res);
});
