// Two gateways on one PostgreSQL database share a large local batch: its shards run on both, every
// item is sent upstream exactly once (no instance runs an item another holds), and the results list
// each custom_id once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { dialects, dropSchema, randomSchema, TEST_PG_URL } from '../helpers/dialects.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';
import { type Json, pollUntil } from './helpers.ts';

const ITEMS = 200;
const MASTER_KEY = '2DJu3Xi1EryDINE7jaEKGig/VtA7jhBW4mwAf7SPlrg=';
const pg = (await dialects()).find((d) => d.name === 'postgres');

async function call(gw: GatewayProcess, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return path.endsWith('/results') ? { text } : (JSON.parse(text) as Json);
}

describe('a local batch across two instances', { skip: pg?.skip }, () => {
  let fake: FakeUpstream;
  before(async () => {
    fake = await startFakeUpstream({ port: 0, record: true });
  });
  after(async () => {
    await fake.close();
  });

  test(`${ITEMS} items over 4 shards on two gateways: each sent upstream once, each result once`, async () => {
    const schema = randomSchema();
    const env = {
      SWITCHYARD_DATABASE_URL: TEST_PG_URL,
      SWITCHYARD_DATABASE_SCHEMA: schema,
      SWITCHYARD_MASTER_KEY: MASTER_KEY,
      SWITCHYARD_BATCH_SHARDS: '4',
      SWITCHYARD_BATCH_CONCURRENCY: '8',
    };
    const a = await spawnGateway(env);
    const b = await spawnGateway(env);
    try {
      assert.equal(await a.addOpenAi(fake.url), 201);
      const requests = Array.from({ length: ITEMS }, (_, i) => ({
        custom_id: `item-${i}`,
        params: {
          model: 'openai/gpt-4o-mini-slow-30',
          max_tokens: 16,
          messages: [{ role: 'user', content: `multi-instance question ${i}` }],
        },
      }));
      const batch = await call(a, 'POST', '/beta/v1/messages/batches', { requests });
      const id = batch.id as string;
      const ended = await pollUntil(
        () => call(b, 'GET', `/beta/v1/messages/batches/${id}`),
        (x) => x.processing_status === 'ended',
        60_000,
      );
      assert.equal((ended.request_counts as Json).succeeded, ITEMS);
      const { text } = await call(b, 'GET', `/beta/v1/messages/batches/${id}/results`);
      const ids = (text as string)
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as Json).custom_id as string);
      assert.deepEqual(
        ids,
        requests.map((r) => r.custom_id),
      );
      const sent = new Map<string, number>();
      for (const r of fake.requests()) {
        const text = JSON.stringify(r.body);
        const m = /multi-instance question (\d+)/.exec(text);
        if (m) sent.set(m[1], (sent.get(m[1]) ?? 0) + 1);
      }
      assert.equal(sent.size, ITEMS, 'every item reached the upstream');
      assert.deepEqual(
        [...sent].filter(([, n]) => n > 1),
        [],
        'no item was sent twice',
      );
    } finally {
      await a.stop();
      await b.stop();
      await dropSchema(schema);
    }
  });
});
