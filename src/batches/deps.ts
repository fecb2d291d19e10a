// What the batches feature needs from the rest of the gateway, handed in by the composition root.
import type { Logger } from 'pino';
import type { ChatRequest } from '../ir/types.ts';
import type { JobQueue } from '../jobs/types.ts';
import type { Principal } from '../live/principals.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import type { CallRecord } from '../pipeline/types.ts';
import type { BatchStore } from '../store/batches.ts';
import type { FileBlobs } from '../store/file-blobs.ts';
import type { FileRecord, FileStore } from '../store/files.ts';

export interface BatchSettings {
  /** Items of one batch in flight at once (over all its shards). */
  concurrency: number;
  /** Items of one org in flight at once in this instance, over all its batches. */
  orgConcurrency: number;
  /** Jobs a batch is split into (at most one per 50 items): several instances share its items. */
  shards: number;
  /** Tries per item when the answer is worth retrying (429, 5xx). */
  itemAttempts: number;
  /** Pause before an item's next try, by try number (1 = after the first). */
  retryDelayMs(attempt: number): number;
  /** How long a local batch may run; its unfinished items then expire. */
  windowMs: number;
  /** The most items of one batch in flight a caller may ask for (X-Svc-Batch-Concurrency). */
  maxConcurrency: number;
  /** The longest input line of an alpha batch, in bytes: a line is one request body. */
  maxLineBytes: number;
}

/** A batch item as the budget check estimates it (the shape limits/estimate.ts reads). */
export interface ItemEstimate {
  kind: 'chat' | 'embeddings';
  body: unknown;
  modelRequested: string;
  principal: { orgId: string };
  chat?: { ir: ChatRequest };
}

export interface BatchDeps {
  batches: BatchStore;
  files: FileStore;
  blobs: FileBlobs;
  jobs: JobQueue;
  /** The pipeline the items run through (set once the app has built it). */
  pipeline(): PipelineDeps;
  /** The caller a batch runs as: its creator's key, as it is now; undefined once revoked. */
  principalOf(orgId: string, keyId: string): Promise<Principal | undefined>;
  /** A file's bytes wherever it lives (gateway-held, or upstream through its credential). */
  openFile(file: FileRecord): Promise<AsyncIterable<Uint8Array>>;
  /** Refuses a batch whose items' summed estimate does not fit a blocking budget (GatewayError 402). */
  admitBatch(p: Principal, items: readonly ItemEstimate[]): Promise<void>;
  /** Logs one record through the afterResponse hooks (the batch's own row). */
  record(r: CallRecord): void;
  logger: Logger;
  settings: BatchSettings;
}
