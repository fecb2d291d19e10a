// The job queue as features see it: enqueue work by kind, register one handler per kind. Webhook
// deliveries, batch items and sweeps run through it so that they survive restarts and each job is
// held by one instance at a time (src/jobs/runner.ts, src/store/jobs.ts).
import type { JsonValue } from '../ir/types.ts';

export interface EnqueueRequest {
  kind: string;
  payload: JsonValue;
  /** Epoch ms or a Date; default now. */
  runAt?: number | Date;
  /** While a job of this kind with this key is queued or running, its id is returned instead of a new job. */
  idempotencyKey?: string;
  /** Default 8; the job is dead-lettered after the last failed attempt. */
  maxAttempts?: number;
}

export interface JobQueue {
  /** Resolves to the job id once the job is stored. */
  enqueue(req: EnqueueRequest): Promise<string>;
}

/** One run of a job, as its handler sees it. */
export interface Job {
  id: string;
  kind: string;
  payload: JsonValue;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  idempotencyKey: string | null;
}

export interface JobContext {
  /**
   * Aborted when this run should give up: the lease was lost (another instance may now hold the
   * job, and this run's outcome will be discarded) or shutdown waited long enough.
   */
  signal: AbortSignal;
}

/**
 * Resolving completes the job; throwing schedules a retry (or dead-letters it on the last attempt),
 * except a `PermanentFailure`, which dead-letters it at once.
 */
export type JobHandler = (job: Job, ctx: JobContext) => Promise<void>;

export interface RegisterOptions {
  /** Delay before the next attempt after `attempt` failed; default exponential with jitter. */
  retryDelayMs?: (attempt: number) => number;
  /**
   * Called when a job is dead-lettered without its handler deciding so: every attempt was lost with
   * its holder (killed mid-run). Lets the feature mark its own record as failed.
   */
  onAbandoned?: (job: Job, lastError: string) => Promise<void>;
}

/** Thrown by a handler that has decided when its job should run again (it shows the time to users). */
export class RetryAt extends Error {
  constructor(
    message: string,
    /** Epoch ms. */
    readonly at: number,
  ) {
    super(message);
    this.name = 'RetryAt';
  }
}

/**
 * Thrown by a handler whose job can never succeed (its input is refused, the same way each time):
 * the job is dead-lettered at once instead of retried. The handler has already recorded the
 * outcome on its feature's own record; the message is the job's last error.
 */
export class PermanentFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentFailure';
  }
}
