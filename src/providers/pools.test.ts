// The lanes are the transport's only Agents: one per lane, shared by every caller, with the options
// each kind of call had before they were pooled in one place. The chat lane is the proxy's hot path,
// so its options are pinned here: a change to them is a change to measure (bench/), not a tidy-up.
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { test } from 'node:test';
import { LANE_OPTIONS, laneAgent, upstreamLookup } from './pools.ts';

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

test('a host that resolves to a link-local or metadata address is not dialled; loopback is', async () => {
  const { Agent, request } = await import('undici');
  // A name rebound to the cloud metadata address after its base_url was checked.
  const rebound: LookupFunction = (_host, _opts, cb) =>
    (cb as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
      { address: '169.254.169.254', family: 4 },
    ]);
  const agent = new Agent({ connect: { lookup: upstreamLookup(rebound) } });
  const err = await request('http://api.vendor.example/', { dispatcher: agent }).catch((e: unknown) => e);
  assert.ok(err instanceof Error);
  assert.match(String((err as { cause?: unknown }).cause ?? err), /169\.254\.169\.254|refused|link-local|metadata/i);
  await agent.close();
  const { sendUpstream, UpstreamTransportError } = await import('./http.ts');
  const local = await sendUpstream({ method: 'GET', url: 'http://localhost:1/', headers: {} }).catch((e) => e);
  assert.ok(local instanceof UpstreamTransportError);
  assert.match(local.info.message, /connection refused/, 'localhost is dialled (the closed port refuses)');
});
