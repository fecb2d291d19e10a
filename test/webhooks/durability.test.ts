// Deliveries are durable and held by one instance at a time: kill -9 with 100 deliveries pending
// toward a receiver that is down loses none once it is back, and two gateways on one PostgreSQL
// database never attempt the same delivery at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dialects, dropSchema, randomSchema, TEST_PG_URL } from '../helpers/dialects.ts';
import { freePort, type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';
import { type Receiver, startReceiver, waitFor } from './receiver.ts';

const EVENTS = 100;

async function manage(
  gw: GatewayProcess,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown>;
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function countDeliveries(gw: GatewayProcess, status: string): Promise<number> {
  let n = 0;
  let cursor = '';
  for (;;) {
    const page = await manage(gw, 'GET', `/manage/v1/webhooks/deliveries?status=${status}&limit=200${cursor}`);
    n += (page.data as unknown[]).length;
    if (!page.has_more) return n;
    cursor = `&cursor=${page.next_cursor as string}`;
  }
}

/** Each event is an API key created: a write whose event goes through the outbox. */
async function makeEvents(gw: GatewayProcess, n: number, prefix: string): Promise<void> {
  for (let i = 0; i < n; i++) await manage(gw, 'POST', '/manage/v1/api-keys', { name: `${prefix}-${i}` });
}

function idCounts(rx: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of rx.received) {
    const id = String(r.headers['webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

// Instances sharing a database must share the master key that seals secrets.
const MASTER_KEY = '2DJu3Xi1EryDINE7jaEKGig/VtA7jhBW4mwAf7SPlrg=';
const pgEnv = (schema: string) => ({
  SWITCHYARD_DATABASE_URL: TEST_PG_URL,
  SWITCHYARD_DATABASE_SCHEMA: schema,
  SWITCHYARD_MASTER_KEY: MASTER_KEY,
});

for (const d of await dialects()) {
  describe(`webhook durability (${d.name})`, { skip: d.skip }, () => {
    test(`kill -9 with ${EVENTS} deliveries pending and the receiver down: all delivered after restart`, async () => {
      const schema = d.name === 'postgres' ? randomSchema() : undefined;
      const env = {
        ...(schema ? pgEnv(schema) : {}),
        // Retries every second for long enough that nothing is marked failed during the test.
        SWITCHYARD_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 40 }, () => '1s').join(','),
      };
      const port = await freePort();
      const first = await spawnGateway(env);
      let second: GatewayProcess | undefined;
      let rx: Receiver | undefined;
      try {
        await manage(first, 'POST', '/manage/v1/webhooks/endpoints', {
          url: `http://127.0.0.1:${port}/hook`,
          event_types: ['api_key.created'],
        });
        await makeEvents(first, EVENTS, 'k9');
        // Every event fanned out, and the receiver has refused at least some attempts already.
        await waitFor('deliveries created', async () =>
          (await countDeliveries(first, 'pending')) === EVENTS ? true : undefined,
        );
        first.child.kill('SIGKILL');
        await first.exited;

        second = await spawnGateway(env, { dataDir: first.dataDir });
        rx = await startReceiver(() => 200, port);
        // A job whose holder died mid-attempt is retaken when its 30 s lease expires.
        await waitFor(
          'all delivered',
          async () => ((await countDeliveries(second as GatewayProcess, 'delivered')) === EVENTS ? true : undefined),
          60_000,
        );
        const counts = idCounts(rx);
        assert.equal(counts.size, EVENTS, 'every event reached the receiver');
        // The receiver answered every request at once, so no webhook-id had a reason to come twice.
        const twice = [...counts].filter(([, n]) => n > 1);
        assert.deepEqual(twice, [], 'no webhook-id was delivered twice');
        assert.equal(await countDeliveries(second, 'pending'), 0);
        assert.equal(await countDeliveries(second, 'failed'), 0);
      } finally {
        first.child.kill('SIGKILL');
        await second?.stop();
        await rx?.close();
        if (schema) await dropSchema(schema);
      }
    });
  });
}

const pgTarget = (await dialects()).find((t) => t.name === 'postgres');
describe('two gateways on one PostgreSQL database', { skip: pgTarget?.skip }, () => {
  test('each delivery is attempted by one of them at a time, and delivered once', async () => {
    const schema = randomSchema();
    const env = pgEnv(schema);
    // A slow receiver keeps attempts in flight long enough for a double claim to show.
    const rx = await startReceiver(() => ({ status: 200, delayMs: 150 }));
    const a = await spawnGateway(env);
    const b = await spawnGateway(env);
    try {
      await manage(a, 'POST', '/manage/v1/webhooks/endpoints', { url: rx.url, event_types: ['api_key.created'] });
      await Promise.all([makeEvents(a, 30, 'a'), makeEvents(b, 30, 'b')]);
      await waitFor(
        'all delivered',
        async () => ((await countDeliveries(a, 'delivered')) === 60 ? true : undefined),
        60_000,
      );
      const counts = idCounts(rx);
      assert.equal(counts.size, 60);
      assert.deepEqual(
        [...counts].filter(([, n]) => n > 1),
        [],
        'no delivery was attempted twice',
      );
      assert.equal(rx.maxInFlightPerId, 1);
    } finally {
      await a.stop();
      await b.stop();
      await rx.close();
      await dropSchema(schema);
    }
  });
});
