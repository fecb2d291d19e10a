// Issue 38 item 1: a batch whose validation cannot succeed must stop, not retry for 17 minutes, and a
// cancel must stop a batch still in validation. The job runner dead-letters a PermanentFailure at
// once; the validate job uses it for errors no retry would change, ends a batch cancelled before its
// items were stored without reading its file, and stops reading a file when a cancel comes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { BatchDeps } from '../../src/batches/deps.ts';
import { BatchExecutor, VALIDATE_JOB } from '../../src/batches/executor.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { type Job, PermanentFailure } from '../../src/jobs/types.ts';
import type { BatchRecord } from '../../src/store/batches.ts';
import type { FileBlobs } from '../../src/store/file-blobs.ts';
import type { FileRecord } from '../../src/store/files.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

const silent = pino({ level: 'silent' });

function alphaBatch(id: string, over: Partial<BatchRecord> = {}): BatchRecord {
  const now = Date.now();
  return {
    id,
    orgId: 'org_a',
    projectId: 'proj_a',
    keyId: 'key_a',
    family: 'alpha',
    mode: 'local',
    status: 'validating',
    endpoint: '/v1/chat/completions',
    completionWindow: '24h',
    metadata: null,
    inputFileId: 'file-in',
    outputFileId: null,
    errorFileId: null,
    errors: null,
    model: null,
    credentialId: null,
    upstreamId: null,
    upstream: null,
    concurrency: 4,
    total: 0,
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
    inProgressAt: null,
    finalizingAt: null,
    cancellingAt: null,
    endedAt: null,
    ...over,
  };
}

const inputFile: FileRecord = {
  id: 'file-in',
  orgId: 'org_a',
  projectId: 'proj_a',
  purpose: 'batch',
  filename: 'in.jsonl',
  bytes: 1,
  contentType: 'application/jsonl',
  location: 'gateway',
  storage: 'db',
  credentialId: null,
  vendor: null,
  origin: 'upload',
  status: 'processed',
  createdAt: Date.now(),
  expiresAt: null,
};

const line = (i: number) =>
  `${JSON.stringify({
    custom_id: `c${i}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }] },
  })}\n`;

const validateJob = (batchId: string): Job => ({
  id: `job-${batchId}`,
  kind: VALIDATE_JOB,
  payload: { batch_id: batchId },
  attempt: 1,
  maxAttempts: 1000,
  idempotencyKey: batchId,
});

for (const d of await dialects()) {
  describe(`batch validation stops on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => {
      await t?.dispose();
    });

    function deps(over: Partial<BatchDeps> = {}): BatchDeps & { opened: number } {
      const self = {
        opened: 0,
        batches: t.handle.stores.batches,
        files: { ...t.handle.stores.files, get: async () => inputFile },
        blobs: {} as FileBlobs,
        jobs: { enqueue: async () => 'job' },
        pipeline: () => assert.fail('no item runs in these tests'),
        principalOf: async () => ({ orgId: 'org_a', projectId: 'proj_a', keyId: 'key_a', rateLimits: null }),
        openFile: async () => {
          self.opened++;
          return (async function* () {
            yield Buffer.from(line(0));
          })();
        },
        admitBatch: async () => {},
        record: () => {},
        logger: silent,
        settings: {
          concurrency: 4,
          orgConcurrency: 8,
          shards: 1,
          itemAttempts: 1,
          retryDelayMs: () => 0,
          windowMs: 60_000,
          maxConcurrency: 64,
          maxLineBytes: 1 << 20,
        },
        ...over,
      };
      return self;
    }
    const signal = new AbortController().signal;

    test('a job runner dead-letters a PermanentFailure on its first attempt', async () => {
      const runner = new JobRunner(t.handle.stores.jobs, {
        logger: silent,
        pollMs: 20,
        backoff: { baseMs: 5, capMs: 5 },
      });
      let runs = 0;
      runner.register('permanent', async () => {
        runs++;
        throw new PermanentFailure('this input is refused every time');
      });
      try {
        const id = await runner.enqueue({ kind: 'permanent', payload: null, maxAttempts: 1000 });
        for (let i = 0; i < 200 && (await t.handle.stores.jobs.get(id))?.status !== 'dead'; i++) await sleep(10);
        await sleep(100);
        const job = await t.handle.stores.jobs.get(id);
        assert.equal(job?.status, 'dead');
        assert.equal(job?.attempts, 1);
        assert.equal(runs, 1);
        assert.match(job?.lastError ?? '', /refused every time/);
      } finally {
        await runner.stop(0);
      }
    });

    test('a batch cancelled before its items were stored ends cancelled without reading its file', async () => {
      const id = `batch_cv_${d.name}`;
      await t.handle.stores.batches.create(alphaBatch(id, { status: 'cancelling', cancellingAt: Date.now() }), []);
      const dep = deps();
      await new BatchExecutor(dep).validate(validateJob(id), { signal });
      assert.equal(dep.opened, 0);
      assert.equal((await t.handle.stores.batches.getById(id))?.status, 'cancelled');
    });

    test('a cancel while the input file is read stops the read and ends the batch cancelled', async () => {
      const id = `batch_cr_${d.name}`;
      await t.handle.stores.batches.create(alphaBatch(id), []);
      let sent = 0;
      async function* slowFile(): AsyncGenerator<Uint8Array> {
        // An endless file, a line every 50 ms: only a cancel ends its read.
        for (let i = 0; ; i++) {
          sent++;
          yield Buffer.from(line(i));
          await sleep(50);
        }
      }
      const dep = deps({ openFile: async () => slowFile() });
      const validating = new BatchExecutor(dep).validate(validateJob(id), { signal });
      await sleep(300);
      assert.ok(
        await t.handle.stores.batches.transition(id, ['validating'], {
          status: 'cancelling',
          cancellingAt: Date.now(),
        }),
      );
      await validating;
      const b = await t.handle.stores.batches.getById(id);
      assert.equal(b?.status, 'cancelled');
      assert.equal(b?.total, 0);
      assert.ok(sent < 40, `read ${sent} lines`);
    });

    test('an error the same input brings back every time fails the batch and ends the job for good', async () => {
      const id = `batch_rx_${d.name}`;
      await t.handle.stores.batches.create(alphaBatch(id), []);
      const dep = deps({
        admitBatch: async () => {
          throw new RangeError('Maximum call stack size exceeded');
        },
      });
      await assert.rejects(new BatchExecutor(dep).validate(validateJob(id), { signal }), PermanentFailure);
      const b = await t.handle.stores.batches.getById(id);
      assert.equal(b?.status, 'failed');
      assert.deepEqual(
        (b?.errors as { data: { code: string }[] }).data.map((e) => e.code),
        ['validation_failed'],
      );
    });
  });
}
