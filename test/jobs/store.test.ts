// The job store on every dialect: enqueue, claim, complete; idempotency keys; retry then dead
// letter; fencing; lease expiry and heartbeats; release. Time is passed in (`now`) so lease expiry
// is exact and instant.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClaimRequest, JobStore } from '../../src/store/jobs.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const LEASE = 1000;

for (const d of await dialects()) {
  describe(`job store on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let jobs: JobStore;
    // Each test uses its own kind, so tests never see each other's jobs.
    const req = (kind: string, over: Partial<ClaimRequest> = {}): ClaimRequest => ({
      owner: 'w1',
      kinds: [kind],
      limit: 10,
      leaseMs: LEASE,
      ...over,
    });

    before(async () => {
      t = await d.open();
      jobs = t.handle.stores.jobs;
    });
    after(async () => {
      await t?.dispose();
    });

    test('enqueue, claim with a lease and a fence, complete', async () => {
      const payload = { to: 'https://example.test/hook', n: 3, nested: { ok: true, list: [1, 'a'] } };
      const { id, created } = await jobs.enqueue({ kind: 'basic', payload });
      assert.equal(created, true);
      assert.match(id, /^job_[0-9a-z]{26}$/);
      const queued = await jobs.get(id);
      assert.equal(queued?.status, 'queued');
      assert.equal(queued?.attempts, 0);
      assert.equal(queued?.maxAttempts, 8);

      const now = Date.now();
      const [job, ...rest] = await jobs.claim(req('basic', { now }));
      assert.equal(rest.length, 0);
      assert.equal(job?.id, id);
      assert.equal(job?.status, 'running');
      assert.equal(job?.attempts, 1);
      assert.equal(job?.fence, 1);
      assert.equal(job?.leaseOwner, 'w1');
      assert.equal(job?.runAt, now + LEASE);
      assert.deepEqual(job?.payload, payload);
      assert.deepEqual(await jobs.claim(req('basic', { now, owner: 'w2' })), [], 'a held job is not claimed twice');

      assert.equal(await jobs.complete({ id, fence: 1 }), true);
      const done = await jobs.get(id);
      assert.equal(done?.status, 'done');
      assert.ok(done?.finishedAt);
      assert.equal(done?.leaseOwner, null);
      assert.equal(await jobs.complete({ id, fence: 1 }), false, 'a finished job is not finished again');
      assert.deepEqual(await jobs.claim(req('basic', { now: now + 10 * LEASE })), [], 'done jobs are never claimed');
    });

    test('claims only due jobs of the given kinds, oldest first, up to the limit', async () => {
      const now = Date.now();
      const later = await jobs.enqueue({ kind: 'due', payload: 1, runAt: now + 5000 });
      const a = await jobs.enqueue({ kind: 'due', payload: 2 });
      const b = await jobs.enqueue({ kind: 'due', payload: 3 });
      await jobs.enqueue({ kind: 'due-other', payload: 4 });
      const first = await jobs.claim(req('due', { now: now + 100, limit: 1 }));
      assert.deepEqual(
        first.map((j) => j.id),
        [a.id],
      );
      const second = await jobs.claim(req('due', { now: now + 100 }));
      assert.deepEqual(
        second.map((j) => j.id),
        [b.id],
      );
      for (const j of [...first, ...second]) assert.equal(await jobs.complete({ id: j.id, fence: j.fence }), true);
      const third = await jobs.claim(req('due', { now: now + 5000 }));
      assert.deepEqual(
        third.map((j) => j.id),
        [later.id],
      );
      assert.deepEqual(await jobs.claim(req('due', { kinds: [] })), []);
    });

    test('an idempotency key returns the unfinished job instead of a duplicate', async () => {
      const first = await jobs.enqueue({ kind: 'idem', payload: 1, idempotencyKey: 'k1' });
      const again = await jobs.enqueue({ kind: 'idem', payload: 2, idempotencyKey: 'k1' });
      assert.deepEqual(again, { id: first.id, created: false });
      const otherKind = await jobs.enqueue({ kind: 'idem-b', payload: 1, idempotencyKey: 'k1' });
      assert.equal(otherKind.created, true);
      const otherKey = await jobs.enqueue({ kind: 'idem', payload: 1, idempotencyKey: 'k2' });
      assert.equal(otherKey.created, true);

      const [job] = await jobs.claim(req('idem', { limit: 1 }));
      assert.equal(job?.id, first.id);
      const whileRunning = await jobs.enqueue({ kind: 'idem', payload: 3, idempotencyKey: 'k1' });
      assert.deepEqual(whileRunning, { id: first.id, created: false });
      assert.equal(await jobs.complete({ id: first.id, fence: job.fence }), true);
      const afterDone = await jobs.enqueue({ kind: 'idem', payload: 4, idempotencyKey: 'k1' });
      assert.equal(afterDone.created, true, 'a finished job frees its key');
      assert.notEqual(afterDone.id, first.id);
    });

    test('a failed attempt is retried at retryAt; the last one dead-letters the job', async () => {
      const { id } = await jobs.enqueue({ kind: 'retry', payload: null, maxAttempts: 2 });
      const now = Date.now();
      const [one] = await jobs.claim(req('retry', { now }));
      assert.equal(await jobs.fail({ id, fence: one.fence }, 'boom 1', now + 500, now), true);
      const queued = await jobs.get(id);
      assert.equal(queued?.status, 'queued');
      assert.equal(queued?.lastError, 'boom 1');
      assert.equal(queued?.runAt, now + 500);
      assert.deepEqual(await jobs.claim(req('retry', { now: now + 499 })), [], 'not before its retry time');
      const [two] = await jobs.claim(req('retry', { now: now + 500 }));
      assert.equal(two?.attempts, 2);
      assert.equal(two?.fence, one.fence + 1);
      assert.equal(await jobs.fail({ id, fence: two.fence }, 'boom 2', null), true);

      const dead = await jobs.get(id);
      assert.equal(dead?.status, 'dead');
      assert.equal(dead?.lastError, 'boom 2');
      assert.ok(dead?.finishedAt);
      assert.deepEqual(await jobs.claim(req('retry', { now: now + 10 * LEASE })), []);
      const listed = await jobs.listDead({ kind: 'retry' });
      assert.deepEqual(
        listed.map((j) => [j.id, j.lastError]),
        [[id, 'boom 2']],
      );
      assert.ok((await jobs.listDead()).some((j) => j.id === id));
      assert.deepEqual(await jobs.listDead({ kind: 'retry', afterId: id }), []);
      assert.deepEqual(await jobs.listDead({ kind: 'nothing-dead' }), []);
    });

    test('fencing: after its lease expired and another worker took the job, a stale holder writes nothing', async () => {
      const { id } = await jobs.enqueue({ kind: 'fence', payload: null });
      const t0 = Date.now();
      const [stale] = await jobs.claim(req('fence', { now: t0, owner: 'stale' }));
      // The stale holder stops heartbeating (paused, partitioned); its lease runs out.
      const [fresh] = await jobs.claim(req('fence', { now: t0 + LEASE + 1, owner: 'fresh' }));
      assert.equal(fresh?.id, id);
      assert.equal(fresh?.fence, stale.fence + 1);
      assert.equal(fresh?.leaseOwner, 'fresh');
      const staleLease = { id, fence: stale.fence };
      assert.equal(await jobs.complete(staleLease), false);
      assert.equal(await jobs.fail(staleLease, 'stale', null), false);
      assert.equal(await jobs.heartbeat(staleLease, LEASE), false);
      assert.equal(await jobs.release(staleLease), false);
      assert.equal((await jobs.get(id))?.leaseOwner, 'fresh');
      assert.equal(await jobs.fail({ id, fence: fresh.fence }, 'fresh result', null), true);
      assert.equal(await jobs.complete(staleLease), false);
      const row = await jobs.get(id);
      assert.equal(row?.status, 'dead');
      assert.equal(row?.lastError, 'fresh result', "the newer holder's result stands");
    });

    test('a lease without heartbeats expires and the job is retaken; heartbeats keep it', async () => {
      const { id } = await jobs.enqueue({ kind: 'lease', payload: null });
      const t0 = Date.now();
      const [held] = await jobs.claim(req('lease', { now: t0 }));
      assert.deepEqual(await jobs.claim(req('lease', { now: t0 + LEASE - 1, owner: 'w2' })), []);
      assert.equal(await jobs.heartbeat({ id, fence: held.fence }, LEASE, t0 + 800), true);
      assert.deepEqual(
        await jobs.claim(req('lease', { now: t0 + LEASE + 1, owner: 'w2' })),
        [],
        'the heartbeat moved the expiry',
      );
      const [retaken] = await jobs.claim(req('lease', { now: t0 + 800 + LEASE + 1, owner: 'w2' }));
      assert.equal(retaken?.id, id);
      assert.equal(retaken?.attempts, 2, 'the lost run counts as an attempt');
    });

    test('release gives the job back at once without counting the attempt', async () => {
      const { id } = await jobs.enqueue({ kind: 'release', payload: null });
      const now = Date.now();
      const [held] = await jobs.claim(req('release', { now }));
      assert.equal(await jobs.release({ id, fence: held.fence }, now), true);
      const row = await jobs.get(id);
      assert.equal(row?.status, 'queued');
      assert.equal(row?.attempts, 0);
      assert.equal(row?.leaseOwner, null);
      const [again] = await jobs.claim(req('release', { now, owner: 'w2' }));
      assert.equal(again?.id, id);
      assert.equal(again?.attempts, 1);
    });

    test('concurrent claims never hand one job to two workers', async () => {
      for (let i = 0; i < 40; i++) await jobs.enqueue({ kind: 'race', payload: i });
      const batches = await Promise.all(
        Array.from({ length: 8 }, (_, w) => jobs.claim(req('race', { owner: `w${w}`, limit: 7 }))),
      );
      const ids = batches.flat().map((j) => j.id);
      assert.equal(new Set(ids).size, ids.length);
      assert.equal(ids.length, 40);
    });
  });
}
