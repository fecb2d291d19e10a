import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { textBlockEvents, thinkingBlockEvents, toolBlockEvents } from '../../../ir/test-kit.ts';
import type { StreamEvent } from '../../../ir/types.ts';
import {
  alphaStreamEnd,
  alphaStreamStep,
  newAlphaStreamEncoder,
  newAlphaStreamState,
  PassthroughToolAccumulator,
} from './stream-encoder.ts';

const head = { id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1, model: 'm' };

function run(events: StreamEvent[], includeUsage = false): string[] {
  const enc = newAlphaStreamEncoder({ id: 'chatcmpl-9', model: 'm', created: 1, includeUsage });
  return [...events.flatMap((e) => enc.push(e)), ...enc.end()];
}

function chunk(delta: object, finish: string | null, usage?: null): string {
  const c = { ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
  return `data: ${JSON.stringify(usage === null ? { ...c, usage: null } : c)}\n\n`;
}

describe('alpha stream encoder', () => {
  it('encodes a text stream', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'u', model: 'up', usage: { input: 3 } },
        ...textBlockEvents(0, 'Hel', '', 'lo'),
        { type: 'stop', stopReason: 'end_turn' },
      ]),
      [
        chunk({ role: 'assistant', content: '' }, null),
        chunk({ content: 'Hel' }, null),
        chunk({ content: 'lo' }, null),
        chunk({}, 'stop'),
        'data: [DONE]\n\n',
      ],
    );
  });

  it('drops thinking and appends the usage chunk when asked', () => {
    assert.deepEqual(
      run(
        [
          { type: 'start', id: 'u', model: 'up', usage: { input: 3, cacheRead: 4 } },
          ...thinkingBlockEvents(0, ['hmm'], 'sig'),
          ...textBlockEvents(1, 'Yes'),
          { type: 'stop', stopReason: 'max_tokens' },
          { type: 'usage', usage: { output: 7 } },
        ],
        true,
      ),
      [
        chunk({ role: 'assistant', content: '' }, null, null),
        chunk({ content: 'Yes' }, null, null),
        chunk({}, 'length', null),
        `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 7, completion_tokens: 7, total_tokens: 14, prompt_tokens_details: { cached_tokens: 4 } } })}\n\n`,
        'data: [DONE]\n\n',
      ],
    );
  });

  it('surfaces parallel tool calls complete on the finish chunk', () => {
    assert.deepEqual(
      run([
        { type: 'start', id: 'u', model: 'up' },
        ...textBlockEvents(0, 'Checking'),
        ...toolBlockEvents(1, 'toolu_a', 'weather', '{"city":', '"Paris"}'),
        { type: 'block_start', index: 2, block: { type: 'tool_use', id: 'toolu_b', name: 'time' } },
        { type: 'block_stop', index: 2 },
        { type: 'stop', stopReason: 'tool_use' },
      ]),
      [
        chunk({ role: 'assistant', content: '' }, null),
        chunk({ content: 'Checking' }, null),
        chunk(
          {
            tool_calls: [
              {
                index: 0,
                id: 'toolu_a',
                type: 'function',
                function: { name: 'weather', arguments: '{"city":"Paris"}' },
              },
              { index: 1, id: 'toolu_b', type: 'function', function: { name: 'time', arguments: '{}' } },
            ],
          },
          'tool_calls',
        ),
        'data: [DONE]\n\n',
      ],
    );
  });

  it('ends with an error record and no [DONE] on a mid-stream error', () => {
    const enc = newAlphaStreamEncoder({ id: 'chatcmpl-9', model: 'm', created: 1, includeUsage: true });
    const out = [
      ...enc.push({ type: 'text_delta', index: 0, text: 'par' }),
      ...enc.push({
        type: 'error',
        error: { status: 529, kind: 'overloaded', message: 'Overloaded', code: 'overloaded', retryable: true },
      }),
      ...enc.push({ type: 'text_delta', index: 0, text: 'ignored' }),
      ...enc.end(),
    ];
    assert.deepEqual(out, [
      chunk({ role: 'assistant', content: '' }, null, null),
      chunk({ content: 'par' }, null, null),
      'data: {"error":{"message":"Overloaded","type":"api_error","param":null,"code":"overloaded"}}\n\n',
    ]);
  });

  it('still ends well-formed when no stop arrived', () => {
    assert.deepEqual(run([]), [chunk({ role: 'assistant', content: '' }, null), chunk({}, 'stop'), 'data: [DONE]\n\n']);
  });
});

/** The JSON payloads of `data:` records (`[DONE]` stays a string). */
function payloads(records: string[]): unknown[] {
  return records.map((r) => {
    const data = r.slice('data: '.length).trimEnd();
    return data === '[DONE]' ? data : JSON.parse(data);
  });
}

describe('alphaStreamStep / alphaStreamEnd', () => {
  const opts = { id: 'chatcmpl-1', model: 'm', created: 1, includeUsage: false };

  it('accumulates tool arguments per IR block and writes nothing for them until the finish', () => {
    const s = newAlphaStreamState(opts);
    alphaStreamStep(s, { type: 'block_start', index: 2, block: { type: 'tool_use', id: 'call_a', name: 'f' } });
    alphaStreamStep(s, { type: 'block_start', index: 5, block: { type: 'tool_use', id: 'call_b', name: 'g' } });
    assert.deepEqual(alphaStreamStep(s, { type: 'tool_args_delta', index: 5, partialJson: '{"b":' }), []);
    assert.deepEqual(alphaStreamStep(s, { type: 'tool_args_delta', index: 2, partialJson: '{"a":1}' }), []);
    assert.deepEqual(alphaStreamStep(s, { type: 'tool_args_delta', index: 5, partialJson: '2}' }), []);
    // A fragment for a block that never started as a tool call has nowhere to go.
    assert.deepEqual(alphaStreamStep(s, { type: 'tool_args_delta', index: 9, partialJson: 'x' }), []);
    assert.deepEqual(s.calls, [
      { id: 'call_a', name: 'f', args: '{"a":1}' },
      { id: 'call_b', name: 'g', args: '{"b":2}' },
    ]);
    assert.deepEqual(
      [...s.callByBlock],
      [
        [2, 0],
        [5, 1],
      ],
    );
  });

  it('writes no content after the finish chunk, and no second finish at the end', () => {
    const s = newAlphaStreamState(opts);
    alphaStreamStep(s, { type: 'text_delta', index: 0, text: 'a' });
    const [finish] = payloads(alphaStreamStep(s, { type: 'stop', stopReason: 'end_turn' })) as {
      choices: { finish_reason: string }[];
    }[];
    assert.equal(finish.choices[0].finish_reason, 'stop');
    assert.equal(s.finished, true);
    assert.deepEqual(alphaStreamStep(s, { type: 'text_delta', index: 0, text: 'late' }), []);
    assert.deepEqual(alphaStreamStep(s, { type: 'stop', stopReason: 'max_tokens' }), []);
    assert.deepEqual(payloads(alphaStreamEnd(s)), ['[DONE]']);
    assert.equal(s.closed, true);
    assert.deepEqual(alphaStreamEnd(s), []);
  });

  it('merges usage from the start and later usage events into the trailing usage chunk', () => {
    const s = newAlphaStreamState({ ...opts, includeUsage: true });
    alphaStreamStep(s, { type: 'start', id: 'u', model: 'u', usage: { input: 10, output: 1 } });
    alphaStreamStep(s, { type: 'usage', usage: { output: 4 } });
    assert.deepEqual(s.usage, { input: 10, output: 4 });
    const end = payloads(alphaStreamEnd(s)) as { choices: unknown[]; usage: unknown }[];
    assert.equal(end.length, 3, 'finish, usage, [DONE]');
    assert.deepEqual(end[1].choices, []);
    assert.deepEqual(end[1].usage, { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
  });

  it('an error that comes first is the only record: no role chunk, nothing after it', () => {
    const s = newAlphaStreamState(opts);
    const out = alphaStreamStep(s, {
      type: 'error',
      error: { status: 500, kind: 'server', message: 'boom', retryable: true },
    });
    assert.equal(out.length, 1);
    assert.equal(s.started, false);
    assert.equal(s.closed, true);
    assert.deepEqual(alphaStreamStep(s, { type: 'text_delta', index: 0, text: 'x' }), []);
    assert.deepEqual(alphaStreamEnd(s), []);
  });
});

describe('PassthroughToolAccumulator', () => {
  const c = (delta: object, finish: string | null = null) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });

  it('holds fragments and releases complete calls on the finish chunk', () => {
    const acc = new PassthroughToolAccumulator();
    const text = c({ content: 'hi' });
    assert.deepEqual(acc.push(text), [text]);
    assert.equal(acc.push(text)[0], text, 'untouched chunks are the same object');
    assert.deepEqual(
      acc.push(
        c({
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }],
        }),
      ),
      [c({ role: 'assistant', content: null })],
    );
    assert.deepEqual(acc.push(c({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] })), []);
    assert.deepEqual(
      acc.push(
        c({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
      ),
      [],
    );
    assert.deepEqual(acc.push(c({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] })), []);
    assert.deepEqual(acc.push(c({}, 'tool_calls')), [
      c(
        {
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            { index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        'tool_calls',
      ),
    ]);
    const usage = { ...head, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    assert.deepEqual(acc.push(usage), [usage]);
    assert.deepEqual(acc.end(), []);
  });

  it('flushes held calls when the upstream never finished', () => {
    const acc = new PassthroughToolAccumulator();
    acc.push(
      c({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }] }),
    );
    assert.deepEqual(acc.end(), [
      c(
        { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        'tool_calls',
      ),
    ]);
  });
});
