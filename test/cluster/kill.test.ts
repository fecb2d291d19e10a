// kill -9 of one of three instances: its job leases run out and the others retake the work, so a
// 300-item local batch still ends with 300 results (each custom_id once), and 50 webhook deliveries
// that were retrying all arrive. The instance killed is one that holds such a job at that moment.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { TEST_PG_URL } from '../helpers/dialects.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { type Receiver, startReceiver, waitFor } from '../webhooks/receiver.ts';
import { type Cluster, call, ok, startCluster } from './helpers.ts';

/** The instance whose process holds a running job of `kind` right now, if any. */
async function holderOf(cluster: Cluster, kind: string): Promise<GatewayProcess | undefined> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    const r = await client.query<{ lease_owner: string }>(
      `select lease_owner from "${cluster.schema}".jobs where kind = $1 and status = 'running' and lease_owner is not null`,
      [kind],
    );
    const pids = new Set(r.rows.map((row) => Number(row.lease_owner.split(':')[1])));
    return cluster.nodes.find((g) => g.child.pid !== undefined && pids.has(g.child.pid) && g.child.exitCode === null);
  } finally {
    await client.end();
  }
}

async function killHolder(cluster: Cluster, kind: string): Promise<GatewayProcess> {
  const victim = await waitFor(`an instance holding a ${kind} job`, () => holderOf(cluster, kind), 20_000);
  victim.child.kill('SIGKILL');
  await victim.exited;
  return victim;
}

describe('kill -9 of one instance loses no work', () => {
  let cluster: Cluster;
  let fake: FakeUpstream;
  let rx: Receiver;
  let attempts = 0;
  /** Deliveries answered 200: each only after its first attempt failed. */
  const delivered = new Set<string>();
  before(async () => {
    fake = await startFakeUpstream({ port: 0 });
    // Every delivery fails its first attempt, so all of them are retrying when the kill comes.
    const seen = new Set<string>();
    rx = await startReceiver((req) => {
      attempts++;
      const id = String(req.headers['webhook-id']);
      if (seen.has(id)) {
        delivered.add(id);
        return 200;
      }
      seen.add(id);
      return 500;
    });
    cluster = await startCluster(3, {
      SWITCHYARD_JOB_LEASE_MS: '2000',
      SWITCHYARD_BATCH_SHARDS: '6',
      SWITCHYARD_BATCH_CONCURRENCY: '4',
      SWITCHYARD_WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms',
    });
    assert.equal(await cluster.nodes[0].addOpenAi(fake.url), 201);
  });
  after(async () => {
    await cluster?.close();
    await fake?.close();
    await rx?.close();
  });

  test('a 300-item local batch completes with 300 results, each custom_id once', async () => {
    const a = cluster.nodes[0];
    const requests = Array.from({ length: 300 }, (_, i) => ({
      custom_id: `item-${i}`,
      params: { model: 'openai/gpt-4o-mini-slow-40', max_tokens: 20, messages: [{ role: 'user', content: `n${i}` }] },
    }));
    const created = (await ok(a, 'POST', '/beta/v1/messages/batches', { requests })) as { id: string };
    const victim = await killHolder(cluster, 'batches.run');
    const alive = cluster.nodes.filter((g) => g !== victim);
    const ended = await waitFor(
      'the batch to end',
      async () => {
        const r = await call(alive[0], 'GET', `/beta/v1/messages/batches/${created.id}`);
        return r.json.processing_status === 'ended' ? r.json : undefined;
      },
      90_000,
    );
    assert.deepEqual(ended.request_counts, { processing: 0, succeeded: 300, errored: 0, canceled: 0, expired: 0 });
    const res = await fetch(`${alive[1].url}/beta/v1/messages/batches/${created.id}/results`, {
      headers: { 'x-api-key': alive[1].key },
    });
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { custom_id: string });
    assert.equal(lines.length, 300);
    assert.equal(new Set(lines.map((l) => l.custom_id)).size, 300);
    // The cluster serves on with two instances; the third is started again for the next test.
    cluster.nodes.splice(cluster.nodes.indexOf(victim), 1);
    await cluster.add();
  });

  test('50 webhook deliveries that were retrying are all delivered', async () => {
    const a = cluster.nodes[0];
    const ep = (await ok(a, 'POST', '/manage/v1/webhooks/endpoints', {
      url: rx.url,
      event_types: ['webhook.test'],
    })) as {
      id: string;
    };
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const node = cluster.nodes[i % cluster.nodes.length];
      const r = await call(node, 'POST', `/manage/v1/webhooks/endpoints/${ep.id}/test`, {});
      assert.ok(r.status < 300, JSON.stringify(r.json));
      ids.push(String((r.json.delivery as { id?: string } | undefined)?.id ?? r.json.id));
    }
    await killHolder(cluster, 'webhooks.deliver').catch(() => undefined);
    await waitFor('every delivery answered 200', () => (delivered.size >= 50 ? true : undefined), 60_000);
    assert.equal(delivered.size, 50);
    assert.ok(attempts >= 100, 'each failed once, then succeeded');
  });
});
