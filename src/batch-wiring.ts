// Wires the batches feature to what it may not import itself: the files feature (where a batch's
// input file lives and how to read it), the key store (who a batch runs as) and the pipeline's hooks
// (its one log row). Part of the composition root, with app.ts.
import { Batches } from './batches/service.ts';
import { reachFile } from './files/placement.ts';
import { runEvery } from './jobs/recurring.ts';
import type { Services } from './manage/services.ts';
import type { PipelineDeps } from './pipeline/deps.ts';
import { runAfterResponse } from './pipeline/hooks.ts';
import { filesApi } from './providers/registry.ts';
import type { FileRecord } from './store/files.ts';
import { compileModelPatterns } from './util/model-patterns.ts';

/** Tries per batch item whose answer is worth retrying (429, 5xx), and the pause before each. */
const ITEM_ATTEMPTS = 3;
const RETRY_BASE_MS = 1000;
/** How often pass-through batches are refreshed from their vendor when nobody asks. */
const POLL_MS = 30_000;

async function openFile(svc: Services, pipeline: PipelineDeps, file: FileRecord): Promise<AsyncIterable<Uint8Array>> {
  if (file.location === 'gateway') return svc.fileBlobs.open(file.id);
  const place = reachFile(pipeline.live, file, {});
  const answer = await filesApi(place.vendor).content(place.target.credential, file.id);
  if (answer.status !== 200) {
    const text = await answer.body.text().catch(() => '');
    throw new Error(`reading ${file.id} upstream answered ${answer.status}: ${text.slice(0, 200)}`);
  }
  return answer.body;
}

export function createBatches(svc: Services, pipeline: PipelineDeps): Batches {
  const { config } = svc;
  const batches = new Batches({
    batches: svc.stores.batches,
    files: svc.stores.files,
    blobs: svc.fileBlobs,
    jobs: svc.batchJobs,
    pipeline: () => pipeline,
    async principalOf(orgId, keyId) {
      // A shard can start on an instance that has not yet heard of a credential added just before
      // its batch (another instance's change reaches this one a moment later): one poll of the
      // credential mirror makes this instance as current as the store before an item is routed.
      await svc.credentials.refresh();
      const key = await svc.stores.orgKeys.findAuthRow(orgId, keyId);
      if (key === undefined || key.revokedAt !== null) return undefined;
      // The key's allow-list and role hold for its batch's items as for its own calls.
      return {
        orgId: key.orgId,
        projectId: key.projectId,
        keyId: key.id,
        role: key.role,
        rateLimits: key.rateLimits,
        modelAllow: key.allowedModels === null ? null : compileModelPatterns(key.allowedModels),
      };
    },
    openFile: (file) => openFile(svc, pipeline, file),
    admitBatch: (p, items) => svc.limits.admitBatch(p, items),
    record: (r) => runAfterResponse(pipeline.hooks, r, pipeline.onHookError),
    logger: svc.logger,
    settings: {
      concurrency: config.batchConcurrency,
      orgConcurrency: config.batchOrgConcurrency,
      shards: config.batchShards,
      itemAttempts: ITEM_ATTEMPTS,
      retryDelayMs: (attempt) => RETRY_BASE_MS * 2 ** (attempt - 1),
      windowMs: config.batchWindowMs,
      maxConcurrency: 64,
      maxLineBytes: config.maxBodyBytes,
    },
  });
  batches.start(svc.batchJobs);
  void runEvery(svc.batchJobs, 'batches.poll', POLL_MS, () => batches.pollUpstream()).catch((err: unknown) =>
    svc.logger.error({ err }, 'could not schedule the pass-through batch poller'),
  );
  return batches;
}
