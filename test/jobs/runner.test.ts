// The job runner on every dialect: wake-up on enqueue, retry with backoff then dead letter, lease
// loss (fencing, a dead worker's job retaken), heartbeats, graceful stop, bounded concurrency, and
// two runners on separate connections running 200 jobs exactly once each.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobRunner, type JobRunnerOptions } from '../../src/jobs/runner.ts';
import { openStore, type StoreHandle } from '../../src/store/index.ts';
import type { JobStore } from '../../src/store/jobs.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { gate, silent, waitUntil } from './helpers.ts';

const FAST: Omit<JobRunnerOptions, 'logger'> = {
  pollMs: 20,
  leaseMs: 2000,
  stopTimeoutMs: 2000,
  backoff: { baseMs: 5, capMs: 20 },
};

for (const d of await dialects()) {
  describe(`job runner on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    let store: JobStore;
    const runners: JobRunner[] = [];
    const runner = (opts: Partial<JobRunnerOptions> = {}) => {
      const r = new JobRunner(store, { logger: silent, ...FAST, ...opts });
      runners.push(r);
      return r;
    };
    const status = async (id: string) => (await store.get(id))?.status;

    before(async () => {
      t = await d.open();
      store = t.handle.stores.jobs;
    });
    afterEach(async () => {
      await Promise.all(runners.splice(0).map((r) => r.stop(0)));
    });
    after(async () => {
      await t?.dispose();
    });

    test('a job enqueued in this process runs at once, without waiting for the poll', async () => {
      const r = runner({ pollMs: 60_000 });
      const seen: unknown[] = [];
      r.register('wake', async (job) => {
        seen.push(job.payload);
      });
      // Let the first (empty) claim pass so the loop is asleep on its long poll.
      await sleep(50);
      const id = await r.enqueue({ kind: 'wake', payload: { hello: 'world' } });
      await waitUntil('the job to finish', async () => (await status(id)) === 'done', 5000);
      assert.deepEqual(seen, [{ hello: 'world' }]);
      assert.equal(
        await r.enqueue({ kind: 'wake', payload: 1, idempotencyKey: 'x', runAt: Date.now() + 60_000 }),
        await r.enqueue({ kind: 'wake', payload: 2, idempotencyKey: 'x' }),
      );
    });

    test('a runner with no handler never claims', async () => {
      let claims = 0;
      const counting: JobStore = {
        ...store,
        claim: (req) => {
          claims++;
          return store.claim(req);
        },
      };
      const r = new JobRunner(counting, { logger: silent, ...FAST });
      const id = await r.enqueue({ kind: 'unhandled', payload: null });
      await sleep(60);
      await r.stop();
      assert.equal(claims, 0);
      assert.equal(await status(id), 'queued');
    });

    test('failures retry with backoff, then the job is dead-lettered with its last error', async () => {
      const r = runner();
      const attempts: number[] = [];
      r.register('flaky', async (job) => {
        attempts.push(job.attempt);
        throw new Error(`failure ${job.attempt}`);
      });
      const id = await r.enqueue({ kind: 'flaky', payload: null, maxAttempts: 3 });
      await waitUntil('dead letter', async () => (await status(id)) === 'dead');
      assert.deepEqual(attempts, [1, 2, 3]);
      const dead = await store.listDead({ kind: 'flaky' });
      assert.equal(dead.length, 1);
      assert.match(dead[0]?.lastError ?? '', /failure 3/);

      const recovering: number[] = [];
      r.register('recovers', async (job) => {
        recovering.push(job.attempt);
        if (job.attempt < 3) throw new Error('not yet');
      });
      const ok = await r.enqueue({ kind: 'recovers', payload: null });
      await waitUntil('recovery', async () => (await status(ok)) === 'done');
      assert.deepEqual(recovering, [1, 2, 3]);
    });

    test('per-kind retry delays are used', async () => {
      const r = runner();
      const delays: number[] = [];
      const times: number[] = [];
      r.register(
        'scheduled',
        async () => {
          times.push(Date.now());
          throw new Error('again');
        },
        {
          retryDelayMs: (attempt) => {
            delays.push(attempt);
            return 150;
          },
        },
      );
      const id = await r.enqueue({ kind: 'scheduled', payload: null, maxAttempts: 2 });
      await waitUntil('dead letter', async () => (await status(id)) === 'dead');
      assert.deepEqual(delays, [1]);
      assert.ok((times[1] ?? 0) - (times[0] ?? 0) >= 150);
    });

    test('a losing holder is aborted and its result discarded (fencing)', async () => {
      const r = runner({ leaseMs: 300, heartbeatMs: 30 });
      const aborted = gate();
      let finishedWith: string | undefined;
      r.register('stolen', async (_job, ctx) => {
        ctx.signal.addEventListener('abort', () => aborted.open());
        await aborted.promise;
        finishedWith = 'success after the lease was lost';
      });
      const id = await r.enqueue({ kind: 'stolen', payload: null });
      await waitUntil('the claim', async () => (await status(id)) === 'running');
      // Another worker takes the job as if the lease had expired, and records its own result.
      const [taken] = await store.claim({
        owner: 'thief',
        kinds: ['stolen'],
        limit: 1,
        leaseMs: 60_000,
        now: Date.now() + 10_000,
      });
      assert.equal(taken?.id, id);
      await aborted.promise;
      await waitUntil('the handler to return', () => finishedWith !== undefined && r.active === 0);
      const row = await store.get(id);
      assert.equal(row?.status, 'running', 'the stale success did not complete the job');
      assert.equal(row?.leaseOwner, 'thief');
      assert.equal(await store.complete({ id, fence: taken.fence }), true);
    });

    test("a dead worker's job is retaken once its lease expires", async () => {
      const id = (await store.enqueue({ kind: 'orphan', payload: null })).id;
      // A worker claims and dies: no heartbeat, no outcome.
      const [lost] = await store.claim({ owner: 'dead-worker', kinds: ['orphan'], limit: 1, leaseMs: 150 });
      assert.equal(lost?.id, id);
      const r = runner();
      const runs: number[] = [];
      r.register('orphan', async (job) => {
        runs.push(job.attempt);
      });
      await waitUntil('the retake', async () => (await status(id)) === 'done');
      assert.deepEqual(runs, [2]);
      assert.ok(Date.now() >= lost.runAt, 'not before the lease expired');
    });

    test('heartbeats keep a long job from being retaken', async () => {
      const opts = { leaseMs: 300, heartbeatMs: 30, pollMs: 10 };
      const a = runner(opts);
      const b = runner(opts);
      let runs = 0;
      const handler = async () => {
        runs++;
        await sleep(700);
      };
      a.register('long', handler);
      const id = await a.enqueue({ kind: 'long', payload: null });
      await waitUntil('the claim', async () => (await status(id)) === 'running');
      b.register('long', handler);
      await waitUntil('the job to finish', async () => (await status(id)) === 'done');
      assert.equal(runs, 1);
      assert.equal((await store.get(id))?.attempts, 1);
    });

    test('stop waits for running handlers to finish', async () => {
      const r = runner();
      r.register('short', async () => {
        await sleep(100);
      });
      const id = await r.enqueue({ kind: 'short', payload: null });
      await waitUntil('the claim', async () => (await status(id)) === 'running');
      await r.stop(5000);
      assert.equal(await status(id), 'done');
      assert.throws(() => r.register('late', async () => {}), /stopped/);
    });

    test('stop releases the leases of handlers that outlast its timeout, and another runner takes them at once', async () => {
      const r = runner({ leaseMs: 60_000 });
      let signal: AbortSignal | undefined;
      r.register('stuck', async (_job, ctx) => {
        signal = ctx.signal;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      });
      const id = await r.enqueue({ kind: 'stuck', payload: null });
      await waitUntil('the claim', async () => (await status(id)) === 'running');
      await r.stop(50);
      assert.equal(signal?.aborted, true);
      const row = await store.get(id);
      assert.equal(row?.status, 'queued');
      assert.equal(row?.leaseOwner, null);
      assert.equal(row?.attempts, 0, 'the interrupted attempt is not counted');

      const next = runner();
      next.register('stuck', async () => {});
      await waitUntil('the other runner', async () => (await status(id)) === 'done', 2000);
    });

    test('concurrency is bounded per runner', async () => {
      const r = runner({ concurrency: 3 });
      let inFlight = 0;
      let peak = 0;
      r.register('bounded', async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep(20);
        inFlight--;
      });
      const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => r.enqueue({ kind: 'bounded', payload: i })));
      await waitUntil('all jobs', async () => {
        for (const id of ids) if ((await status(id)) !== 'done') return false;
        return true;
      });
      assert.equal(peak, 3);
    });

    test('two runners on separate connections run 200 jobs exactly once each', async () => {
      const second: StoreHandle = await openStore(t.config);
      try {
        const ids: string[] = [];
        for (let i = 0; i < 200; i++) ids.push((await store.enqueue({ kind: 'bulk', payload: i })).id);
        const runs = new Map<string, number>();
        const perRunner = [0, 0];
        const make = (s: JobStore, n: number) => {
          const r = new JobRunner(s, { logger: silent, ...FAST, concurrency: 8, pollMs: 5 });
          runners.push(r);
          r.register('bulk', async (job) => {
            runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
            perRunner[n]++;
            await sleep(2);
          });
          return r;
        };
        make(store, 0);
        make(second.stores.jobs, 1);
        await waitUntil('200 completions', async () => {
          const done = await t.handle.db
            .withTables<{ jobs: { kind: string; status: string } }>()
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('kind', '=', 'bulk')
            .where('status', '=', 'done')
            .executeTakeFirstOrThrow();
          return Number(done.n) === 200;
        });
        assert.equal(runs.size, 200);
        assert.ok(
          [...runs.values()].every((n) => n === 1),
          'every job ran exactly once',
        );
        assert.deepEqual([...runs.keys()].sort(), [...ids].sort());
        assert.ok(perRunner[0] > 0 && perRunner[1] > 0, `both runners took part: ${perRunner.join(' / ')}`);
      } finally {
        await Promise.all(runners.splice(0).map((r) => r.stop(0)));
        await second.close();
      }
    });

    test("a dead local holder's lease is ended at start (reclaimLocalDeadHolders), a live one's is kept", async () => {
      const deadId = await store.enqueue({ kind: 'orphan', payload: 'dead' });
      const liveId = await store.enqueue({ kind: 'orphan', payload: 'live' });
      // Claimed as if by processes of this host: one that no longer exists, and this one.
      const [dead] = await store.claim({
        owner: `${hostname()}:2147483646:x`,
        kinds: ['orphan'],
        limit: 1,
        leaseMs: 600_000,
      });
      const [live] = await store.claim({
        owner: `${hostname()}:${process.pid}:y`,
        kinds: ['orphan'],
        limit: 1,
        leaseMs: 600_000,
      });
      assert.deepEqual([dead?.id, live?.id], [deadId.id, liveId.id]);
      const seen: unknown[] = [];
      runner({ reclaimLocalDeadHolders: true }).register('orphan', async (job) => {
        seen.push(job.payload);
      });
      await waitUntil('the orphan to run', async () => (await status(deadId.id)) === 'done', 5000);
      await sleep(100);
      assert.deepEqual(seen, ['dead']);
      assert.equal(await status(liveId.id), 'running');
    });
  });
}
