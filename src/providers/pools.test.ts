// The lanes are the transport's only Agents: one per lane, shared by every caller, with the options
// each kind of call had before they were pooled in one place. The chat lane is the proxy's hot path,
// so its options are pinned here: a change to them is a change to measure (bench/), not a tidy-up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LANE_OPTIONS, laneAgent } from './pools.ts';

test('one Agent per lane, the same for every caller', () => {
  assert.equal(laneAgent('files'), laneAgent('files'));
  assert.notEqual(laneAgent('files'), laneAgent('batches'));
});

test('the chat lane keeps the hot path pool options', () => {
  assert.deepEqual(LANE_OPTIONS.chat, {
    connections: 256,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
});
