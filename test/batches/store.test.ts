// The batch store on both dialects: shard claims never hand one item to two holders, a settled item
// is counted on its batch in the same transaction, a dead run's items come back to its shard, and a
// transition happens once, with its event.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BatchRecord, BatchStore } from '../../src/store/batches.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

function batch(id: string, over: Partial<BatchRecord> = {}): BatchRecord {
  const now = Date.now();
  return {
    id,
    orgId: 'org_a',
    projectId: 'proj_a',
    keyId: 'key_a',
    family: 'beta',
    mode: 'local',
    status: 'in_progress',
    endpoint: null,
    completionWindow: null,
    metadata: null,
    inputFileId: null,
    outputFileId: null,
    errorFileId: null,
    errors: null,
    model: 'openai/gpt-4o-mini',
    credentialId: null,
    upstreamId: null,
    upstream: null,
    concurrency: 4,
    total: 10,
    succeeded: 0,
    errored: 0,
    canceled: 0,
    expired: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    costRecordedAt: null,
    createdAt: now,
    expiresAt: now + 60_000,
    inProgressAt: now,
    finalizingAt: null,
    cancellingAt: null,
    endedAt: null,
    ...over,
  };
}

const items = (n: number) => Array.from({ length: n }, (_, idx) => ({ idx, customId: `c${idx}`, request: { n: idx } }));

for (const d of await dialects()) {
  describe(`batch store on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let s: BatchStore;
    before(async () => {
      t = await d.open();
      s = t.handle.stores.batches;
    });
    after(async () => {
      await t?.dispose();
    });

    test('claims split by shard, never twice; settling counts on the batch', async () => {
      await s.create(batch('msgbatch_1'), items(10));
      const [a, b] = await Promise.all([s.claim('msgbatch_1', 0, 2, 'h0', 10), s.claim('msgbatch_1', 1, 2, 'h1', 10)]);
      assert.deepEqual(
        a.map((i) => i.idx),
        [0, 2, 4, 6, 8],
      );
      assert.deepEqual(
        b.map((i) => i.idx),
        [1, 3, 5, 7, 9],
      );
      assert.deepEqual(await s.claim('msgbatch_1', 0, 2, 'h0', 10), [], 'nothing left pending');
      assert.equal(await s.settle('msgbatch_1', 0, 'h1', { state: 'succeeded', result: {} }), false, 'not its holder');
      assert.ok(
        await s.settle('msgbatch_1', 0, 'h0', { state: 'succeeded', result: { ok: 1 }, costUsd: 0.25, inputTokens: 3 }),
      );
      assert.ok(await s.settle('msgbatch_1', 2, 'h0', { state: 'errored', result: { bad: 1 } }));
      const got = await s.getById('msgbatch_1');
      assert.equal(got?.succeeded, 1);
      assert.equal(got?.errored, 1);
      assert.equal(got?.costUsd, 0.25);
      assert.equal(got?.inputTokens, 3);
      assert.equal(await s.unsettled('msgbatch_1'), 8);
    });

    test("a dead run's running items go back to its shard; remaining ones settle as canceled", async () => {
      await s.create(batch('msgbatch_2'), items(6));
      await s.claim('msgbatch_2', 0, 1, 'dead', 3);
      assert.equal(await s.releaseShard('msgbatch_2', 0, 1), 3);
      const again = await s.claim('msgbatch_2', 0, 1, 'alive', 2);
      assert.deepEqual(
        again.map((i) => [i.idx, i.attempts]),
        [
          [0, 2],
          [1, 2],
        ],
      );
      assert.equal(await s.requeue('msgbatch_2', 0, 'alive'), true);
      assert.equal(await s.settleRemaining('msgbatch_2', 0, 1, 'canceled'), 5);
      const b = await s.getById('msgbatch_2');
      assert.equal(b?.canceled, 5);
      const page = await s.items('msgbatch_2', -1, 100);
      assert.deepEqual(
        page.map((i) => i.state),
        ['canceled', 'running', 'canceled', 'canceled', 'canceled', 'canceled'],
      );
    });

    test('a transition happens once; items added twice are stored and counted once', async () => {
      await s.create(batch('batch_3', { family: 'alpha', status: 'validating', total: 0 }), []);
      const found = [
        ...items(3),
        { idx: 3, customId: 'bad', request: null, state: 'errored' as const, result: { e: 1 } },
      ];
      await s.addItems('batch_3', found);
      await s.addItems('batch_3', found);
      const b = await s.getById('batch_3');
      assert.equal(b?.total, 4);
      assert.equal(b?.errored, 1);
      const event = { orgId: 'org_a', type: 'batch.completed' as const, data: { batch_id: 'batch_3' } };
      assert.equal(await s.transition('batch_3', ['validating'], { status: 'in_progress' }, [event]), true);
      assert.equal(await s.transition('batch_3', ['validating'], { status: 'in_progress' }, [event]), false);
      const listed = await s.list('org_a', { family: 'alpha', projectId: 'proj_a', limit: 10 });
      assert.deepEqual(
        listed.map((x) => x.id),
        ['batch_3'],
      );
      assert.equal(await s.markDeleted('org_a', 'batch_3', Date.now()), true);
      assert.equal(await s.get('org_a', 'batch_3'), undefined);
    });
  });
}
