// Runs stored jobs: claims due ones with a lease, runs their handlers with bounded concurrency,
// renews each lease while its handler runs, and records the outcome under the claim's fence.
// A process that dies keeps its leases only until they expire; then any runner retakes the jobs.
//
// Nothing runs until a handler is registered: a gateway whose features use no jobs never polls.
// The proxy path never calls in here.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { JobLease, JobRecord, JobStore } from '../store/jobs.ts';
import { processAlive } from '../util/process-alive.ts';
import { type BackoffPolicy, backoffMs, DEFAULT_BACKOFF } from './backoff.ts';
import {
  type EnqueueRequest,
  type Job,
  type JobHandler,
  type JobQueue,
  PermanentFailure,
  type RegisterOptions,
  RetryAt,
} from './types.ts';

export interface JobRunnerOptions {
  logger: Logger;
  /** Names this process in `lease_owner`; default host:pid:random. */
  owner?: string;
  /** Handlers running at once in this process (default 4). */
  concurrency?: number;
  /** Idle poll for jobs enqueued by other processes or coming due (default 500 ms). */
  pollMs?: number;
  /** How long a claim holds a job without a heartbeat (default 30 s). */
  leaseMs?: number;
  /** Default a third of the lease, so two beats can fail before it expires. */
  heartbeatMs?: number;
  /** How long stop() waits for running handlers before releasing their jobs (default 10 s). */
  stopTimeoutMs?: number;
  backoff?: BackoffPolicy;
  /**
   * At start, end at once the leases of this host's processes that are gone (a kill -9) instead of
   * waiting for them to expire. Only sound where a host name means one machine and one pid space:
   * the embedded SQLite mode. Shared databases rely on lease expiry.
   */
  reclaimLocalDeadHolders?: boolean;
}

interface Registration {
  handler: JobHandler;
  retryDelayMs: (attempt: number) => number;
  onAbandoned: RegisterOptions['onAbandoned'];
}

interface Running {
  job: JobRecord;
  lease: JobLease;
  abort: AbortController;
  stopHeartbeat(): void;
  /** Set when stop() gave the job back: whatever the handler does later is not recorded. */
  released: boolean;
  done?: Promise<void>;
}

type State = 'idle' | 'running' | 'stopping' | 'stopped';

const errorText = (err: unknown) => (err instanceof Error ? err.stack || err.message : String(err));

export class JobRunner implements JobQueue {
  readonly #store: JobStore;
  readonly #logger: Logger;
  readonly #owner: string;
  readonly #concurrency: number;
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  readonly #stopTimeoutMs: number;
  readonly #backoff: BackoffPolicy;
  readonly #reclaimLocal: boolean;
  readonly #handlers = new Map<string, Registration>();
  readonly #running = new Set<Running>();
  #state: State = 'idle';
  #loop: Promise<void> | undefined;
  #stopped: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #woken = false;

  constructor(store: JobStore, opts: JobRunnerOptions) {
    this.#store = store;
    this.#logger = opts.logger;
    this.#owner = opts.owner ?? ownerName(process.pid);
    this.#concurrency = Math.max(1, opts.concurrency ?? 4);
    this.#pollMs = opts.pollMs ?? 500;
    this.#leaseMs = opts.leaseMs ?? 30_000;
    this.#heartbeatMs = opts.heartbeatMs ?? Math.max(1, Math.floor(this.#leaseMs / 3));
    this.#stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
    this.#backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.#reclaimLocal = opts.reclaimLocalDeadHolders ?? false;
  }

  get owner(): string {
    return this.#owner;
  }

  /** Handlers running now. */
  get active(): number {
    return this.#running.size;
  }

  /** The first registration starts the runner. */
  register(kind: string, handler: JobHandler, opts: RegisterOptions = {}): void {
    if (this.#state === 'stopping' || this.#state === 'stopped') throw new Error('job runner is stopped');
    if (this.#handlers.has(kind)) throw new Error(`a handler for job kind ${kind} is already registered`);
    this.#handlers.set(kind, {
      handler,
      retryDelayMs: opts.retryDelayMs ?? ((attempt) => backoffMs(attempt, this.#backoff)),
      onAbandoned: opts.onAbandoned,
    });
    if (this.#state === 'idle') {
      this.#state = 'running';
      this.#loop = this.#claimLoop();
    } else {
      this.#nudge();
    }
  }

  async enqueue(req: EnqueueRequest): Promise<string> {
    const runAt = req.runAt instanceof Date ? req.runAt.getTime() : req.runAt;
    const { id } = await this.#store.enqueue({
      kind: req.kind,
      payload: req.payload,
      ...(runAt !== undefined ? { runAt } : {}),
      ...(req.idempotencyKey !== undefined ? { idempotencyKey: req.idempotencyKey } : {}),
      ...(req.maxAttempts !== undefined ? { maxAttempts: req.maxAttempts } : {}),
    });
    // Other processes find the job on their next poll; this one need not wait for its own.
    if (this.#handlers.has(req.kind)) this.#nudge();
    return id;
  }

  /**
   * Stops claiming, waits up to `timeoutMs` for running handlers, then gives the unfinished jobs
   * back so another instance takes them at once instead of after their lease expires.
   */
  stop(timeoutMs: number = this.#stopTimeoutMs): Promise<void> {
    this.#stopped ??= this.#stop(timeoutMs);
    return this.#stopped;
  }

  async #stop(timeoutMs: number): Promise<void> {
    if (this.#state === 'idle') {
      this.#state = 'stopped';
      return;
    }
    this.#state = 'stopping';
    this.#nudge();
    await this.#loop;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.allSettled([...this.#running].map((r) => r.done)).then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!finished) await Promise.all([...this.#running].map((r) => this.#release(r, 'job runner stopping')));
    this.#state = 'stopped';
  }

  async #release(r: Running, reason: string): Promise<void> {
    r.released = true;
    r.stopHeartbeat();
    r.abort.abort(new Error(reason));
    try {
      await this.#store.release(r.lease);
    } catch (err) {
      this.#logger.warn({ err, job: r.job.id }, 'could not release a job lease; it will be retaken when it expires');
    }
  }

  async #reclaimDeadHolders(): Promise<void> {
    try {
      for (const lease of await this.#store.listHeld(`${hostname()}:`)) {
        const pid = Number(lease.owner.split(':')[1]);
        if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid) && (await this.#store.expire(lease))) {
          this.#logger.info({ job: lease.id, owner: lease.owner }, 'retaking a job whose holder process is gone');
        }
      }
    } catch (err) {
      this.#logger.warn({ err }, 'could not look for jobs of dead processes; their leases will expire');
    }
  }

  async #claimLoop(): Promise<void> {
    if (this.#reclaimLocal) await this.#reclaimDeadHolders();
    while (this.#state === 'running') {
      const free = this.#concurrency - this.#running.size;
      let more = false;
      if (free > 0) {
        this.#woken = false;
        try {
          const jobs = await this.#store.claim({
            owner: this.#owner,
            kinds: [...this.#handlers.keys()],
            limit: free,
            leaseMs: this.#leaseMs,
          });
          for (const job of jobs) this.#start(job);
          more = jobs.length === free;
        } catch (err) {
          this.#logger.warn({ err }, 'claiming jobs failed; will retry');
        }
      }
      if (!more) await this.#sleep(this.#pollMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.#wake = done;
    });
  }

  /** Wakes the claim loop now, or makes its next sleep return at once. */
  #nudge(): void {
    if (this.#wake) this.#wake();
    else this.#woken = true;
  }

  #start(job: JobRecord): void {
    const r: Running = {
      job,
      lease: { id: job.id, fence: job.fence },
      abort: new AbortController(),
      stopHeartbeat: () => {},
      released: false,
    };
    this.#running.add(r);
    // A job claimed while stop() began is given back at once rather than started.
    const run = this.#state === 'running' ? this.#execute(r) : this.#release(r, 'job runner stopping');
    r.done = run
      .catch((err: unknown) => this.#logger.error({ err, job: job.id }, 'job runner failed to run a job'))
      .finally(() => {
        this.#running.delete(r);
        this.#nudge();
      });
  }

  async #execute(r: Running): Promise<void> {
    const { job, lease } = r;
    const reg = this.#handlers.get(job.kind);
    if (reg === undefined) return this.#release(r, `no handler for ${job.kind}`);
    // Claims count attempts, so holders that died mid-run have used some up without an outcome.
    if (job.attempts > job.maxAttempts) {
      const reason = job.lastError ?? 'every attempt lost its lease before finishing';
      if (await this.#store.fail(lease, reason, null)) await reg.onAbandoned?.(toJob(job), reason);
      return;
    }
    r.stopHeartbeat = this.#heartbeat(r);
    let failure: string | undefined;
    let retryAt: number | undefined;
    let permanent = false;
    try {
      await reg.handler(toJob(job), { signal: r.abort.signal });
    } catch (err) {
      // A handler that scheduled its own retry, or gave up for good, has already said why; its
      // stack adds nothing.
      permanent = err instanceof PermanentFailure;
      failure = err instanceof RetryAt || err instanceof PermanentFailure ? err.message : errorText(err);
      if (err instanceof RetryAt) retryAt = err.at;
    } finally {
      r.stopHeartbeat();
    }
    if (r.released) return;
    let kept: boolean;
    if (failure === undefined) {
      kept = await this.#store.complete(lease);
    } else {
      const last = permanent || job.attempts >= job.maxAttempts;
      const next = last ? null : (retryAt ?? Date.now() + reg.retryDelayMs(job.attempts));
      kept = await this.#store.fail(lease, failure, next);
      const log = { job: job.id, kind: job.kind, attempt: job.attempts, error: failure };
      if (permanent) this.#logger.warn(log, 'job failed for good; dead-lettered without a retry');
      else if (next === null) this.#logger.warn(log, 'job failed on its last attempt; dead-lettered');
      else this.#logger.info(log, 'job failed; will retry');
    }
    if (!kept) {
      this.#logger.warn(
        { job: job.id, kind: job.kind },
        'job lease was lost before the job finished; outcome discarded',
      );
    }
  }

  /** Renews the lease every heartbeatMs; a refused renewal means another holder, so the run is aborted. */
  #heartbeat(r: Running): () => void {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const beat = async () => {
      try {
        if (!(await this.#store.heartbeat(r.lease, this.#leaseMs))) {
          r.abort.abort(new Error('job lease lost'));
          return;
        }
      } catch (err) {
        // One failed beat is not a lost lease: the next may still land before expiry.
        this.#logger.warn({ err, job: r.job.id }, 'job heartbeat failed');
      }
      if (!stopped) schedule();
    };
    // Not unref'd, unlike the idle poll: a handler waiting only on its signal is still work in progress.
    const schedule = () => {
      timer = setTimeout(() => void beat(), this.#heartbeatMs);
    };
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }
}

function ownerName(pid: number): string {
  return `${hostname()}:${pid}:${Math.random().toString(36).slice(2, 8)}`;
}

function toJob(r: JobRecord): Job {
  return {
    id: r.id,
    kind: r.kind,
    payload: r.payload,
    attempt: r.attempts,
    maxAttempts: r.maxAttempts,
    idempotencyKey: r.idempotencyKey,
  };
}
