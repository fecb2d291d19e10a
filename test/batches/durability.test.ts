// A local batch survives kill -9: the gateway is killed in the middle of a 500-item batch, started
// again on the same data dir, and the batch completes with exactly 500 results, each custom_id once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';
import { type Json, pollUntil } from './helpers.ts';

const ITEMS = 500;
let fake: FakeUpstream;
before(async () => {
  fake = await startFakeUpstream({ port: 0 });
});
after(async () => {
  await fake.close();
});

async function call(gw: GatewayProcess, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gw.key}`,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return path.endsWith('/results') ? { text } : (JSON.parse(text) as Json);
}

describe('local batch durability', () => {
  test(`kill -9 in the middle of a ${ITEMS}-item batch: it completes after restart, each custom_id once`, async () => {
    const first = await spawnGateway({ SWITCHYARD_BATCH_CONCURRENCY: '8' });
    let second: GatewayProcess | undefined;
    try {
      assert.equal(await first.addOpenAi(fake.url), 201);
      const requests = Array.from({ length: ITEMS }, (_, i) => ({
        custom_id: `item-${i}`,
        params: {
          model: 'openai/gpt-4o-mini-slow-20',
          max_tokens: 16,
          messages: [{ role: 'user', content: `question ${i}` }],
        },
      }));
      const batch = await call(first, 'POST', '/beta/v1/messages/batches', { requests });
      const id = batch.id as string;
      await pollUntil(
        () => call(first, 'GET', `/beta/v1/messages/batches/${id}`),
        (b) => ((b.request_counts as Json).succeeded as number) >= 100,
      );
      first.child.kill('SIGKILL');
      await first.exited;

      second = await spawnGateway({ SWITCHYARD_BATCH_CONCURRENCY: '8' }, { dataDir: first.dataDir });
      const ended = await pollUntil(
        () => call(second as GatewayProcess, 'GET', `/beta/v1/messages/batches/${id}`),
        (b) => b.processing_status === 'ended',
        60_000,
      );
      assert.deepEqual(ended.request_counts, { processing: 0, succeeded: ITEMS, errored: 0, canceled: 0, expired: 0 });
      const { text } = await call(second, 'GET', `/beta/v1/messages/batches/${id}/results`);
      const lines = (text as string)
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Json);
      assert.equal(lines.length, ITEMS);
      const ids = lines.map((l) => l.custom_id as string);
      assert.equal(new Set(ids).size, ITEMS, 'each custom_id once');
      assert.deepEqual(
        ids,
        requests.map((r) => r.custom_id),
      );
      assert.ok(lines.every((l) => (l.result as Json).type === 'succeeded'));
    } finally {
      first.child.kill('SIGKILL');
      await second?.stop();
    }
  });
});
