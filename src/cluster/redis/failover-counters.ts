// Counters that survive a Redis outage: RedisCounters while Redis answers, a LocalCounters of this
// instance while it does not. A Redis outage must degrade limits, never fail calls: each instance
// then enforces its limits alone (so N instances admit up to N times a limit) until Redis returns.
//
// What crosses the outage:
// - A call admitted locally is settled locally (the admission is remembered per request object).
// - Its spend is also sent to Redis once Redis is back (without a reservation, which Redis never
//   held), so the cluster's budgets count what was spent meanwhile.
// - A call admitted in Redis whose settle cannot reach Redis is settled there once it is back; the
//   settle's promise answers then, so threshold events still fire.
// - An admission whose answer was lost (a timeout) may have been taken on the server; it is undone
//   there once Redis is back, if it was (RedisCounters' replay marker makes this exact).
// - The local budgets are kept warm with the spends Redis reports, so an outage starts from the
//   cluster's last known spend instead of zero.
// Redis answers again when ioredis reports 'ready' after reconnecting, or, when the connection never
// dropped (commands timed out), when a periodic PING gets through.
import type {
  AdmitRequest,
  AdmitResult,
  BudgetCounter,
  BudgetSpend,
  Counters,
  MaybePromise,
  SettleRequest,
} from '../../ports/counters.ts';
import { LocalCounters } from '../local/counters.ts';
import type { OnceClaims } from '../types.ts';
import { type ClusterLog, isOutage, type LinkState, neverSent, SILENT_LOG } from './client.ts';
import { hasSettleWork, type RedisCounters } from './counters.ts';

export interface FailoverCountersOptions {
  redis: RedisCounters;
  /** Answers while Redis is away (default: a fresh one). */
  local?: LocalCounters;
  logger?: ClusterLog;
  /** Told of every change of where counters are kept (for a metric and /healthz). */
  onStateChange?: (state: LinkState) => void;
  /** Settles held for Redis while it is away (default 10,000); beyond that the oldest are dropped. */
  maxPending?: number;
  /** How often to try Redis again while the connection stays up but commands fail (default 1 s). */
  probeMs?: number;
}

interface Pending {
  req: SettleRequest;
  /** Apply only if the admission is still open on the server (the first try may have run). */
  replay: boolean;
  resolve?: (spends: BudgetSpend[]) => void;
}

/** A settle that only adds spend: the admission it stands for was never reserved in Redis. */
function spendOnly(req: SettleRequest): SettleRequest {
  const { admitted } = req;
  return {
    now: req.now,
    admitted: { now: admitted.now, tokens: 0, costUsd: 0, rates: [], budgets: admitted.budgets },
    actualTokens: 0,
    actualUsd: req.actualUsd,
  };
}

export class FailoverCounters implements Counters, OnceClaims {
  readonly #redis: RedisCounters;
  readonly #local: LocalCounters;
  readonly #log: ClusterLog;
  readonly #onStateChange: (state: LinkState) => void;
  readonly #maxPending: number;
  readonly #probeMs: number;
  #state: LinkState = 'local';
  #outageLogged = false;
  /** Admissions answered locally and not yet settled (a request object may be admitted again). */
  readonly #localAdmits = new WeakMap<AdmitRequest, number>();
  #pending: Pending[] = [];
  #dropped = 0;
  #draining: Promise<boolean> | undefined;
  #probe: NodeJS.Timeout | undefined;
  #closed = false;
  #lastBugLog = 0;

  constructor(opts: FailoverCountersOptions) {
    this.#redis = opts.redis;
    this.#local = opts.local ?? new LocalCounters();
    this.#log = opts.logger ?? SILENT_LOG;
    this.#onStateChange = opts.onStateChange ?? (() => {});
    this.#maxPending = opts.maxPending ?? 10_000;
    this.#probeMs = opts.probeMs ?? 1000;
    const client = this.#redis.client;
    client.on('ready', this.#onReady);
    client.on('close', this.#onClose);
    client.on('error', this.#onError);
    if (client.status === 'ready') this.#state = 'redis';
  }

  /** Where counters are kept now: 'local' until the first connection and during outages. */
  get state(): LinkState {
    return this.#state;
  }

  admit(req: AdmitRequest): MaybePromise<AdmitResult> {
    if (this.#state === 'local') return this.#admitLocal(req);
    return this.#redis.admit(req).catch((err: unknown) => {
      this.#failed(err);
      if (hasSettleWork(req) && !neverSent(err)) {
        this.#enqueue({
          req: { now: req.now, admitted: req, actualTokens: req.tokens, actualUsd: 0 },
          replay: true,
        });
      }
      return this.#admitLocal(req);
    });
  }

  settle(req: SettleRequest): MaybePromise<BudgetSpend[]> {
    const n = this.#localAdmits.get(req.admitted) ?? 0;
    if (n > 0) {
      if (n === 1) this.#localAdmits.delete(req.admitted);
      else this.#localAdmits.set(req.admitted, n - 1);
      const spends = this.#local.settle(req);
      if (req.actualUsd !== 0 && req.admitted.budgets.length > 0) this.#enqueue({ req: spendOnly(req), replay: false });
      return spends;
    }
    if (!hasSettleWork(req.admitted)) return [];
    if (this.#state === 'local') return this.#defer(req, false);
    const spends = this.#redis.settle(req);
    if (Array.isArray(spends)) return spends;
    return spends.then(
      (s) => this.#mirror(s),
      (err: unknown) => {
        this.#failed(err);
        return this.#defer(req, !neverSent(err));
      },
    );
  }

  budgets(keys: readonly string[]): Promise<BudgetCounter[]> {
    if (this.#state === 'local') return this.#local.budgets(keys);
    return this.#redis.budgets(keys).catch((err: unknown) => {
      this.#failed(err);
      return this.#local.budgets(keys);
    });
  }

  budgetsWithPrefix(prefix: string): Promise<Array<BudgetCounter & { key: string }>> {
    if (this.#state === 'local') return this.#local.budgetsWithPrefix(prefix);
    return this.#redis.budgetsWithPrefix(prefix).catch((err: unknown) => {
      this.#failed(err);
      return this.#local.budgetsWithPrefix(prefix);
    });
  }

  /**
   * Seeds both sides. A seed missed by Redis is not replayed later: it is a rebuild from the
   * request log, and by then Redis may hold newer spend from the other instances.
   */
  async seedSpend(key: string, usd: number): Promise<void> {
    await this.#local.seedSpend(key, usd);
    if (this.#state === 'local') return;
    await this.#redis.seedSpend(key, usd).catch((err: unknown) => this.#failed(err));
  }

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    if (this.#state === 'local') return this.#local.claimOnce(key, ttlMs);
    return this.#redis.claimOnce(key, ttlMs).catch((err: unknown) => {
      this.#failed(err);
      return this.#local.claimOnce(key, ttlMs);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopProbe();
    const client = this.#redis.client;
    client.off('ready', this.#onReady);
    client.off('close', this.#onClose);
    client.off('error', this.#onError);
    for (const p of this.#pending.splice(0)) p.resolve?.([]);
    await this.#redis.close();
    await this.#local.close();
  }

  #admitLocal(req: AdmitRequest): AdmitResult {
    const res = this.#local.admit(req);
    if (res.ok) this.#localAdmits.set(req, (this.#localAdmits.get(req) ?? 0) + 1);
    return res;
  }

  /** Keeps the local budgets at the cluster's spend, for the next outage to start from. */
  #mirror(spends: BudgetSpend[]): BudgetSpend[] {
    for (const s of spends) void this.#local.seedSpend(s.key, s.spentUsd);
    return spends;
  }

  /** A settle held until Redis is back; its promise answers then. */
  #defer(req: SettleRequest, replay: boolean): Promise<BudgetSpend[]> {
    return new Promise((resolve) => this.#enqueue({ req, replay, resolve }));
  }

  #enqueue(p: Pending): void {
    if (this.#closed) {
      p.resolve?.([]);
      return;
    }
    this.#pending.push(p);
    if (this.#pending.length > this.#maxPending) {
      this.#pending.shift()?.resolve?.([]);
      this.#dropped++;
    }
    // Held only while Redis is away; otherwise (a local admission after a script error, one made
    // during an outage and settled after it) sent at once.
    if (this.#state === 'redis') void this.#drain();
  }

  /** Sends the held settles to Redis, in order; false when Redis failed again on the way. */
  #drain(): Promise<boolean> {
    // Cleared asynchronously: a drain that finds nothing to do completes before it is assigned.
    this.#draining ??= this.#drainAll().finally(() => {
      this.#draining = undefined;
    });
    return this.#draining;
  }

  async #drainAll(): Promise<boolean> {
    while (this.#pending.length > 0 && !this.#closed) {
      const batch = this.#pending.splice(0, 500);
      const again: Pending[] = [];
      await Promise.all(batch.map((p) => this.#replay(p, again)));
      if (again.length > 0) {
        this.#pending.unshift(...again);
        return false;
      }
    }
    return true;
  }

  async #replay(p: Pending, again: Pending[]): Promise<void> {
    try {
      const spends = await this.#redis.settle(p.req, { replay: p.replay });
      p.resolve?.(this.#mirror(spends));
    } catch (err) {
      if (isOutage(err)) {
        again.push({ ...p, replay: p.replay || !neverSent(err) });
        this.#failed(err);
      } else {
        this.#bug(err);
        p.resolve?.([]);
      }
    }
  }

  #failed(err: unknown): void {
    if (isOutage(err)) this.#down(err);
    else this.#bug(err);
  }

  #down(err: unknown): void {
    if (this.#closed) return;
    if (!this.#outageLogged) {
      this.#outageLogged = true;
      this.#log.warn({ err }, 'Redis unreachable: rate limits and budgets are counted per instance until it returns');
    }
    if (this.#state === 'redis') {
      this.#state = 'local';
      this.#onStateChange('local');
    }
    // Connected but not answering: no 'ready' will come to say it is back, so ask now and then.
    if (this.#redis.client.status === 'ready') this.#startProbe();
  }

  /** An error reply is a bug, not an outage: that call is answered locally, Redis stays in use. */
  #bug(err: unknown): void {
    const now = Date.now();
    if (now - this.#lastBugLog < 60_000) return;
    this.#lastBugLog = now;
    this.#log.error({ err }, 'a Redis counters script failed; the call was answered from local counters');
  }

  async #up(): Promise<void> {
    if (this.#closed || this.#redis.client.status !== 'ready') return;
    const replayed = this.#pending.length;
    if (!(await this.#drain())) return;
    if (this.#state === 'redis' || this.#closed || this.#redis.client.status !== 'ready') return;
    this.#stopProbe();
    this.#state = 'redis';
    if (this.#outageLogged) {
      this.#log.info({ replayed, dropped: this.#dropped }, 'Redis is back: rate limits and budgets are shared again');
    }
    this.#outageLogged = false;
    this.#dropped = 0;
    this.#onStateChange('redis');
  }

  #startProbe(): void {
    if (this.#probe !== undefined) return;
    this.#probe = setInterval(() => {
      if (this.#redis.client.status !== 'ready') return;
      this.#redis.client.ping().then(
        () => this.#up(),
        () => {},
      );
    }, this.#probeMs);
    this.#probe.unref();
  }

  #stopProbe(): void {
    clearInterval(this.#probe);
    this.#probe = undefined;
  }

  readonly #onReady = (): void => {
    void this.#up();
  };

  readonly #onClose = (): void => {
    this.#down(new Error('connection to Redis closed'));
  };

  readonly #onError = (err: unknown): void => {
    this.#down(err);
  };
}
