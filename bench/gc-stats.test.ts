import assert from 'node:assert/strict';
import { test } from 'node:test';
import { busiestIsolate, parseNvp, splitTicks } from './gc-stats.ts';

const scavenge = (isolate: string, allocated: number, survived: number, promoted: number) =>
  `[123:${isolate}]     9022 ms: pause=7.8 mutator=45.0 gc=s reduce_memory=0 scavenge=7.77 ` +
  `allocated=${allocated} promoted=${promoted} new_space_survived=${survived} nodes_promoted=0 promotion_ratio=10.2%`;

test('nvp lines are summed per isolate; full collections counted; other output ignored', () => {
  const text = [
    'gateway listening on 127.0.0.1:1234',
    scavenge('0x1a1dcca0', 6_000_000, 900_000, 700_000),
    scavenge('0x7f8ca4000f00', 1_000_000, 500, 1_500),
    '[123:0x1a1dcca0]    9100 ms: pause=12.1 mutator=80.0 gc=mc reduce_memory=0 mark=3.2',
    scavenge('0x1a1dcca0', 5_000_000, 800_000, 600_000),
    `${scavenge('0x1a1dcca0', 1, 1, 1).slice(0, 40)}`,
  ].join('\n');
  const byIsolate = parseNvp(text);
  assert.equal(byIsolate.size, 2);
  assert.deepEqual(byIsolate.get('0x1a1dcca0'), {
    scavenges: 2,
    fullGcs: 1,
    allocated: 11_000_000,
    survived: 1_700_000,
    promoted: 1_300_000,
  });
  assert.equal(busiestIsolate(byIsolate), byIsolate.get('0x1a1dcca0'));
  assert.equal(busiestIsolate(new Map()), undefined);
});

test('thread ticks split into the main thread (tid = pid) and the rest; a new thread counts from zero', () => {
  const before = new Map([
    [10, 100],
    [11, 50],
  ]);
  const after = new Map([
    [10, 160],
    [11, 55],
    [12, 7],
  ]);
  assert.deepEqual(splitTicks(10, before, after), { main: 60, others: 12 });
});
