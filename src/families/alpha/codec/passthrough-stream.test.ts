import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamSummary } from '../../../ir/outcome.ts';
import { AlphaPassthroughStream } from './passthrough-stream.ts';

function summary(): StreamSummary {
  return { usage: { input: 0, output: 0 }, text: '', aborted: false };
}

/** The payloads of the SSE text a relay wrote, parsed ([DONE] kept as a string). */
function payloads(sse: string): unknown[] {
  return sse
    .split('\n\n')
    .filter((r) => r !== '')
    .map((r) => {
      assert.match(r, /^data: /);
      const data = r.slice('data: '.length);
      return data === '[DONE]' ? data : JSON.parse(data);
    });
}

const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });

test('text chunks keep their bytes, minus the forced usage:null for callers who did not ask', () => {
  const data = chunk({ content: 'hi' }, null, { usage: null });
  assert.equal(new AlphaPassthroughStream(summary(), true).push(undefined, data), `data: ${data}\n\n`);
  const hidden = new AlphaPassthroughStream(summary(), false).push(undefined, data);
  assert.equal(hidden, `data: ${data.replace(',"usage":null', '')}\n\n`);
  const plain = '{"id":"c1","choices":[{"index":0,"delta":{"content":"x"}}]}';
  assert.equal(new AlphaPassthroughStream(summary(), false).push(undefined, plain), `data: ${plain}\n\n`);
});

test('the usage chunk is hidden from callers who did not ask and counted either way', () => {
  const usage =
    '{"id":"c1","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":2}}}';
  const s = summary();
  assert.equal(new AlphaPassthroughStream(s, false).push(undefined, usage), '');
  assert.deepEqual(s.usage, { input: 5, output: 3, cacheRead: 2 });
  const shown = summary();
  assert.deepEqual(payloads(new AlphaPassthroughStream(shown, true).push(undefined, usage)), [JSON.parse(usage)]);
  assert.deepEqual(shown.usage, { input: 5, output: 3, cacheRead: 2 });
});

test('text and finish reason are read from spaced JSON with escapes, over several choices', () => {
  // Python servers write `", "` and `": "`; escapes must be decoded the way a parse would.
  const records = [
    '{"id": "c1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}], "usage": null}',
    '{"id": "c1", "choices": [{"index": 0, "delta": {"content": "Caf\\u00e9 \\"ok\\"\\n"}, "finish_reason": null}], "usage": null}',
    '{"id": "c1", "choices": [{"index": 1, "delta": {"content": "second"}, "finish_reason": null}], "usage": null}',
    '{"id": "c1", "choices": [{"index": 0, "delta": {}, "logprobs": {"content": [{"token": "x"}]}, "finish_reason": "length"}], "usage": null}',
  ];
  const s = summary();
  const relay = new AlphaPassthroughStream(s, false);
  const out = records.map((r) => relay.push(undefined, r)).join('');
  assert.equal(s.text, 'Café "ok"\nsecond');
  assert.equal(s.stopReason, 'max_tokens');
  const expected = records.map((r) => {
    const o = JSON.parse(r);
    delete o.usage;
    return o;
  });
  assert.deepEqual(payloads(out), expected);
});

test('tool-call fragments are held and released whole on the finish chunk', () => {
  const s = summary();
  const relay = new AlphaPassthroughStream(s, false);
  const call = (args: string, head?: boolean) => ({
    tool_calls: [
      head
        ? { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: args } }
        : { index: 0, function: { arguments: args } },
    ],
  });
  let out = relay.push(undefined, chunk({ role: 'assistant', content: null }, null, { usage: null }));
  out += relay.push(undefined, chunk(call('{"city":', true), null, { usage: null }));
  out += relay.push(undefined, chunk(call('"Oslo"}'), null, { usage: null }));
  out += relay.push(undefined, chunk({}, 'tool_calls', { usage: null }));
  out += relay.push(undefined, '[DONE]');
  const sent = payloads(out);
  const withCalls = sent.filter((p) => JSON.stringify(p).includes('tool_calls":['));
  assert.equal(withCalls.length, 1, JSON.stringify(sent));
  const finish = withCalls[0] as { choices: Array<{ delta: { tool_calls: unknown[] }; finish_reason: string }> };
  assert.equal(finish.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(finish.choices[0].delta.tool_calls, [
    { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
  ]);
  assert.equal(sent[sent.length - 1], '[DONE]');
  assert.ok(!out.includes('"usage"'), out);
  assert.equal(s.stopReason, 'tool_use');
});

test('calls still held when the upstream ends without a finish chunk are flushed by end()', () => {
  const relay = new AlphaPassthroughStream(summary(), true);
  relay.push(
    undefined,
    chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } }] }),
  );
  const [flushed] = payloads(relay.end()) as Array<{ choices: Array<{ delta: { tool_calls: unknown[] } }> }>;
  assert.deepEqual(flushed.choices[0].delta.tool_calls, [
    { index: 0, id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } },
  ]);
  assert.equal(new AlphaPassthroughStream(summary(), true).end(), '');
});

test('an error object in the stream is recorded and relayed as sent', () => {
  const s = summary();
  const data = '{"error": {"message": "overloaded, try later", "type": "overloaded_error"}}';
  assert.equal(new AlphaPassthroughStream(s, false).push(undefined, data), `data: ${data}\n\n`);
  assert.equal(s.error?.kind, 'overloaded');
  assert.equal(s.error?.message, 'overloaded, try later');
});

test('chunks that repeat an earlier head are read as a whole scan reads them', () => {
  // The relay skips the head (everything before `choices`) once a chunk showed it holds none of the
  // scanned names; each chunk here must still give what a relay that never saw a head gives.
  const head = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",';
  const start = '{"id":"c2","error":{"message":"late","type":"x"},"pad":"';
  const otherHead = `${start}${'x'.repeat(head.length - start.length - 2)}",`;
  const records = [
    `${head}"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":null}`,
    `${head}"choices":[{"index":0,"delta":{"content":"Caf\\u00e9 \\"b\\""},"finish_reason":null}],"usage":null}`,
    // The same head, then members the fast path must not take.
    `${head}"choices":[{"index":0,"delta":{},"logprobs":{"content":[{"token":"x"}]},"finish_reason":null}],"usage":null}`,
    `${head}"error":{"message":"boom","type":"server_error"},"choices":[{"index":0,"delta":{}}]}`,
    // A head that only starts like the known one, with usage before choices.
    `${head}"usage":{"prompt_tokens":4,"completion_tokens":2},"choices":[{"index":0,"delta":{"content":"c"},"finish_reason":"stop"}]}`,
    // Another head altogether, as long as the known one, with an error in it.
    `${otherHead}"choices":[{"index":0,"delta":{"content":"d"},"finish_reason":null}],"usage":null}`,
    // A head that holds a scanned name (usage:null before choices) is never skipped.
    `{"id":"c3","usage":null,"choices":[{"index":0,"delta":{"content":"e"},"finish_reason":null}]}`,
    `{"id":"c3","usage":null,"choices":[{"index":0,"delta":{"content":"f"},"finish_reason":null}]}`,
  ];
  for (const wantsUsage of [false, true]) {
    const streamed = summary();
    const relay = new AlphaPassthroughStream(streamed, wantsUsage);
    const alone = summary();
    for (const r of records) {
      const fresh = new AlphaPassthroughStream(summary(), wantsUsage).push(undefined, r);
      assert.equal(relay.push(undefined, r), fresh, r);
      new AlphaPassthroughStream(alone, wantsUsage).push(undefined, r);
    }
    assert.deepEqual(streamed, alone);
    // The chunk with an error is read for its error only.
    assert.equal(streamed.text, 'aCafé "b"cef');
    assert.equal(streamed.error?.message, 'late');
  }
});
