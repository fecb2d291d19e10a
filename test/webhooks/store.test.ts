// The outbox and the webhook stores on both dialects: a write and its event commit together (or
// neither does), fan-out is idempotent per (event, endpoint), replay brings a waiting retry forward,
// and the sweep removes settled history but never a pending delivery.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Stores } from '../../src/store/index.ts';
import { EVENT_DISPATCH_JOB } from '../../src/store/outbox.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const ORG = 'org_01jx0000000000000000000000';

for (const d of await dialects()) {
  describe(`webhook stores on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let s: Stores;
    const count = async (table: string, where = sql`1 = 1`) => {
      const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(
        t.handle.db,
      );
      return Number(r.rows[0]?.n);
    };
    const job = (id: string) => ({ kind: 'test.deliver', payload: { delivery_id: id }, idempotencyKey: id });

    before(async () => {
      t = await d.open();
      s = t.handle.stores;
    });
    after(async () => {
      await t?.dispose();
    });

    test('a write and its event commit together; a failed write leaves no event', async () => {
      const events = await count('domain_events');
      const dispatches = await count('jobs', sql`kind = ${EVENT_DISPATCH_JOB}`);
      const content = { name: 'a', strategy: 'single', config: { model: 'openai/x' }, embeddingDimensions: null };
      const rc = await s.routingConfigs.create({ ...content, orgId: ORG, projectId: null, slug: 'same' });
      await assert.rejects(s.routingConfigs.create({ ...content, orgId: ORG, projectId: null, slug: 'same' }));
      await s.routingConfigs.addVersion(ORG, rc.id, { ...content, name: 'b' });
      await s.routingConfigs.addVersion(ORG, rc.id, content, 1);
      await s.routingConfigs.softDelete(ORG, rc.id);
      assert.equal(await s.routingConfigs.softDelete(ORG, rc.id), undefined);
      const rows = await sql<{ type: string; body: string }>`select type, body from domain_events order by id`.execute(
        t.handle.db,
      );
      const mine = rows.rows.slice(events);
      assert.deepEqual(
        mine.map((r) => r.type),
        ['routing_config.created', 'routing_config.updated', 'routing_config.restored', 'routing_config.deleted'],
      );
      const restored = JSON.parse(mine[2].body) as { data: Record<string, unknown>; timestamp: string };
      assert.deepEqual(restored.data, { id: rc.id, slug: 'same', version: 3, restored_from_version: 1 });
      assert.ok(Date.parse(restored.timestamp) > 0);
      assert.equal(await count('jobs', sql`kind = ${EVENT_DISPATCH_JOB}`), dispatches + 4);
    });

    test('fan-out makes one delivery and one job per endpoint, once', async () => {
      const [eventId] = (
        await sql<{ id: string }>`select id from domain_events order by id desc limit 1`.execute(t.handle.db)
      ).rows.map((r) => r.id);
      const event = await s.webhookDeliveries.getEvent(eventId);
      assert.ok(event);
      const first = await s.webhookDeliveries.fanOut(event, ['whep_a', 'whep_b'], job);
      const again = await s.webhookDeliveries.fanOut(event, ['whep_a', 'whep_b', 'whep_c'], job);
      assert.equal(first.length, 2);
      assert.equal(again.length, 1);
      assert.equal(await count('jobs', sql`kind = 'test.deliver'`), 3);
    });

    test('replay brings a waiting retry forward instead of queueing a second job', async () => {
      const [id] = await s.webhookDeliveries.fanOut(
        (await s.webhookDeliveries.getEvent(
          (
            await sql<{ id: string }>`select id from domain_events order by id limit 1`.execute(t.handle.db)
          ).rows[0].id,
        ))!,
        ['whep_r'],
        job,
      );
      await sql`update jobs set run_at = ${Date.now() + 3_600_000} where idempotency_key = ${id}`.execute(t.handle.db);
      const replayed = await s.webhookDeliveries.replay(ORG, id, job);
      assert.equal(replayed?.status, 'pending');
      const jobs = await sql<{ run_at: number }>`select run_at from jobs where idempotency_key = ${id}`.execute(
        t.handle.db,
      );
      assert.equal(jobs.rows.length, 1);
      assert.ok(Number(jobs.rows[0].run_at) <= Date.now());
      assert.equal(await s.webhookDeliveries.replay('org_other', id, job), undefined);
    });

    test('the sweep removes settled deliveries, their attempts and orphan events; pending ones stay', async () => {
      const ev = await s.webhookDeliveries.createDirect(
        { orgId: ORG, type: 'webhook.test', data: { n: 1 } },
        'whep_s',
        job,
      );
      const pending = await s.webhookDeliveries.createDirect(
        { orgId: ORG, type: 'webhook.test', data: { n: 2 } },
        'whep_s',
        job,
      );
      const attempt = {
        startedAt: new Date().toISOString(),
        durationMs: 3,
        responseStatus: 200,
        responseBody: 'ok',
        error: null,
      };
      assert.equal(
        await s.webhookDeliveries.recordAttempt(ev.id, attempt, { status: 'delivered', nextAttemptAt: null }),
        1,
      );
      const future = new Date(Date.now() + 60_000).toISOString();
      const removed = await s.webhookDeliveries.purge(future);
      assert.ok(removed.deliveries >= 1);
      assert.equal(await s.webhookDeliveries.get(ORG, ev.id), undefined);
      assert.equal(await count('webhook_attempts', sql`delivery_id = ${ev.id}`), 0);
      assert.equal((await s.webhookDeliveries.get(ORG, pending.id))?.status, 'pending');
      // Its event survives with it; every event without a delivery is gone.
      assert.equal(await count('domain_events', sql`id = ${pending.eventId}`), 1);
      assert.equal(await count('domain_events', sql`id = ${ev.eventId}`), 0);
    });

    test('finished jobs are purged by age; unfinished ones never', async () => {
      const day = 86_400_000;
      const now = Date.now();
      const unfinished = await count('jobs', sql`status in ('queued', 'running')`);
      const old = await s.jobs.enqueue({ kind: 'purge.me', payload: null });
      const recent = await s.jobs.enqueue({ kind: 'purge.me', payload: null });
      const [a, b] = await s.jobs.claim({ owner: 't', kinds: ['purge.me'], limit: 2, leaseMs: 60_000 });
      assert.deepEqual([a?.id, b?.id], [old.id, recent.id]);
      await s.jobs.complete({ id: old.id, fence: a.fence }, now - 8 * day);
      await s.jobs.complete({ id: recent.id, fence: b.fence }, now - day);
      const n = await s.jobs.purge(new Date(now - 7 * day).toISOString(), new Date(now - 30 * day).toISOString());
      assert.equal(n, 1);
      assert.equal(await s.jobs.get(old.id), undefined);
      assert.equal((await s.jobs.get(recent.id))?.status, 'done');
      assert.equal(await count('jobs', sql`status in ('queued', 'running')`), unfinished);
    });
  });
}
