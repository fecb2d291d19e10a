// Counters that survive a Redis outage: RedisCounters while Redis answers, this instance's own
// answers while it is away, as SWITCHYARD_LIMITS_WITHOUT_REDIS says: `share` (each instance its share
// of what was left, share-counters.ts), `local` (each instance alone: N instances admit up to N times
// a limit) or `refuse` (a call that needs a shared counter is refused with `limits_unavailable`).
// Slow is not away: an admission waits for Redis while the connection lives (reply-watch.ts).
//
// What crosses the outage:
// - A call admitted without Redis is settled where it was admitted (remembered per request object).
// - Its spend is also sent to Redis once Redis is back (without a reservation, which Redis never
//   held), so the cluster's budgets count what was spent meanwhile.
// - A call admitted in Redis whose settle cannot reach Redis is settled there once it is back; the
//   settle's promise answers then, so threshold events still fire.
// - An admission whose answer was given up on may have been taken on the server; it is undone
//   there once Redis is back, if it was (RedisCounters' replay marker makes this exact).
// - The local budgets are kept warm with the spends Redis reports, so a `local` outage starts from
//   the cluster's last known spend instead of zero.
// Redis answers again when ioredis reports 'ready' after reconnecting, or, when the connection never
// dropped (Redis was silent), when a periodic PING gets through.
import type { LimitsWithoutRedis } from '../../config.ts';
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
import { InstanceRegistry } from './registry.ts';
import { ReplyWatch } from './reply-watch.ts';
import { type HeldAdmission, ShareCounters, settleHeld, spendOnly } from './share-counters.ts';

export interface FailoverCountersOptions {
  redis: RedisCounters;
  /** Answers while Redis is away in `local` mode (default: a fresh one). */
  local?: LocalCounters;
  logger?: ClusterLog;
  /** Told of every change of where counters are kept (for a metric and /healthz). */
  onStateChange?: (state: LinkState) => void;
  /** Settles held for Redis while it is away (default 10,000); beyond that the oldest are dropped. */
  maxPending?: number;
  /** How often to try Redis again while the connection stays up but Redis is silent (default 1 s). */
  probeMs?: number;
  /** What admissions do while Redis is away (default `share`). */
  mode?: LimitsWithoutRedis;
  /** How long a command waits with nothing heard from Redis before Redis counts as away (default 1 s). */
  deadlineMs?: number;
  /** The instance registry (`<prefix>inst`) and its heartbeat; without one, this instance's share is the whole. */
  registryKey?: string;
  heartbeatMs?: number;
  /** Told of each admission answered without Redis (a metric). */
  onWithoutRedis?: (outcome: 'admitted' | 'refused') => void;
}

interface Pending {
  req: SettleRequest;
  /** Apply only if the admission is still open on the server (the first try may have run). */
  replay: boolean;
  resolve?: (spends: BudgetSpend[]) => void;
}

const MODE_WORDS: Record<LimitsWithoutRedis, string> = {
  share: 'each instance admits its share of what was left',
  local: 'each instance counts alone (up to N times a limit across N instances)',
  refuse: 'calls they apply to are refused (503 limits_unavailable)',
};

export class FailoverCounters implements Counters, OnceClaims {
  readonly #redis: RedisCounters;
  readonly #local: LocalCounters;
  readonly #share: ShareCounters;
  readonly #watch: ReplyWatch;
  readonly #registry: InstanceRegistry | undefined;
  readonly #log: ClusterLog;
  readonly #onStateChange: (state: LinkState) => void;
  readonly #onWithoutRedis: (outcome: 'admitted' | 'refused') => void;
  readonly #maxPending: number;
  readonly #probeMs: number;
  readonly #mode: LimitsWithoutRedis;
  #state: LinkState = 'local';
  #outageLogged = false;
  /** This outage's admissions answered without Redis, for the log line that ends it. */
  #outage = { admitted: 0, refused: 0 };
  /** Admissions answered without Redis and not yet settled (a request object may be admitted again). */
  readonly #held = new WeakMap<AdmitRequest, HeldAdmission[]>();
  #pending: Pending[] = [];
  #dropped = 0;
  #draining: Promise<boolean> | undefined;
  #probe: NodeJS.Timeout | undefined;
  #probing = false;
  #closed = false;
  #lastBugLog = 0;

  constructor(opts: FailoverCountersOptions) {
    this.#redis = opts.redis;
    this.#local = opts.local ?? new LocalCounters();
    this.#log = opts.logger ?? SILENT_LOG;
    this.#onStateChange = opts.onStateChange ?? (() => {});
    this.#onWithoutRedis = opts.onWithoutRedis ?? (() => {});
    this.#maxPending = opts.maxPending ?? 10_000;
    this.#probeMs = opts.probeMs ?? 1000;
    this.#mode = opts.mode ?? 'share';
    this.#watch = new ReplyWatch(opts.deadlineMs ?? 1000, (err) => this.#down(err));
    const client = this.#redis.client;
    if (opts.registryKey !== undefined) {
      this.#registry = new InstanceRegistry({
        client,
        key: opts.registryKey,
        instanceId: this.#redis.instanceId,
        everyMs: opts.heartbeatMs,
        send: (p) => this.#watch.watch(p),
      });
    }
    this.#share = new ShareCounters(() => this.#registry?.alive ?? 1);
    if (this.#mode === 'share') this.#redis.observe(this.#share);
    client.on('ready', this.#onReady);
    client.on('close', this.#onClose);
    client.on('error', this.#onError);
    if (client.status === 'ready') {
      this.#state = 'redis';
      this.#watch.listen(this.#redis.client.stream);
    }
    this.#registry?.start();
  }

  /** Where counters are kept now: 'local' until the first connection and during outages. */
  get state(): LinkState {
    return this.#state;
  }

  admit(req: AdmitRequest): MaybePromise<AdmitResult> {
    if (this.#state === 'local') return this.#admitAway(req);
    return this.#watch.watch(this.#redis.admit(req)).catch((err: unknown) => {
      this.#failed(err);
      if (hasSettleWork(req) && !neverSent(err)) {
        this.#enqueue({
          req: { now: req.now, admitted: req, actualTokens: req.tokens, actualUsd: 0 },
          replay: true,
        });
      }
      // A script that failed is a bug, not an outage: that call alone is counted here.
      return isOutage(err)
        ? this.#admitAway(req)
        : this.#hold(req, this.#local.admit(req), { counters: this.#local, admitted: req });
    });
  }

  settle(req: SettleRequest): MaybePromise<BudgetSpend[]> {
    const held = this.#held.get(req.admitted);
    if (held !== undefined) {
      const h = held.shift();
      if (held.length === 0) this.#held.delete(req.admitted);
      if (h !== undefined) {
        const spends = settleHeld(h, req);
        if (req.actualUsd !== 0 && req.admitted.budgets.length > 0)
          this.#enqueue({ req: spendOnly(req), replay: false });
        return spends;
      }
    }
    if (!hasSettleWork(req.admitted)) return [];
    if (this.#state === 'local') return this.#defer(req, false);
    const spends = this.#redis.settle(req);
    if (Array.isArray(spends)) return spends;
    return this.#watch.watch(spends).then(
      (s) => this.#mirror(s),
      (err: unknown) => {
        this.#failed(err);
        return this.#defer(req, !neverSent(err));
      },
    );
  }

  budgets(keys: readonly string[]): Promise<BudgetCounter[]> {
    if (this.#state === 'local') return this.#local.budgets(keys);
    return this.#watch.watch(this.#redis.budgets(keys)).catch((err: unknown) => {
      this.#failed(err);
      return this.#local.budgets(keys);
    });
  }

  budgetsWithPrefix(prefix: string): Promise<Array<BudgetCounter & { key: string }>> {
    if (this.#state === 'local') return this.#local.budgetsWithPrefix(prefix);
    return this.#watch.watch(this.#redis.budgetsWithPrefix(prefix)).catch((err: unknown) => {
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
    this.#share.budget(key, usd, undefined);
    if (this.#state === 'local') return;
    await this.#watch.watch(this.#redis.seedSpend(key, usd)).catch((err: unknown) => this.#failed(err));
  }

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    if (this.#state === 'local') return this.#local.claimOnce(key, ttlMs);
    return this.#watch.watch(this.#redis.claimOnce(key, ttlMs)).catch((err: unknown) => {
      this.#failed(err);
      return this.#local.claimOnce(key, ttlMs);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopProbe();
    this.#watch.close();
    await this.#registry?.close();
    const client = this.#redis.client;
    client.off('ready', this.#onReady);
    client.off('close', this.#onClose);
    client.off('error', this.#onError);
    for (const p of this.#pending.splice(0)) p.resolve?.([]);
    await this.#redis.close();
    await this.#local.close();
  }

  /** An admission while Redis is away, as the mode says. */
  #admitAway(req: AdmitRequest): AdmitResult {
    if (this.#mode === 'refuse') {
      this.#outage.refused++;
      this.#onWithoutRedis('refused');
      return { ok: false, refusal: { kind: 'unavailable', retryAfterMs: this.#probeMs } };
    }
    if (this.#mode === 'local')
      return this.#hold(req, this.#local.admit(req), { counters: this.#local, admitted: req });
    const { res, held } = this.#share.admit(req);
    return held === undefined ? res : this.#hold(req, res, held);
  }

  /** Remembers an admission answered without Redis, for its settle. */
  #hold(req: AdmitRequest, res: AdmitResult, held: HeldAdmission): AdmitResult {
    if (!res.ok) return res;
    const list = this.#held.get(req);
    if (list) list.push(held);
    else this.#held.set(req, [held]);
    this.#outage.admitted++;
    this.#onWithoutRedis('admitted');
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
      const spends = await this.#watch.watch(Promise.resolve(this.#redis.settle(p.req, { replay: p.replay })));
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
      this.#log.warn(
        { err, limits_without_redis: this.#mode, instances: this.#share.shareOf },
        `Redis unreachable: until it returns, for rate limits and budgets ${MODE_WORDS[this.#mode]}`,
      );
    }
    if (this.#state === 'redis') {
      this.#state = 'local';
      this.#onStateChange('local');
    }
    // Connected but silent: no 'ready' will come to say it is back, so ask now and then.
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
    this.#share.end();
    if (this.#outageLogged) {
      this.#log.info(
        { replayed, dropped: this.#dropped, limits_without_redis: this.#mode, ...this.#outage },
        'Redis is back: rate limits and budgets are shared again',
      );
    }
    this.#outageLogged = false;
    this.#dropped = 0;
    this.#outage = { admitted: 0, refused: 0 };
    this.#onStateChange('redis');
    void this.#registry?.beat();
  }

  #startProbe(): void {
    if (this.#probe !== undefined) return;
    this.#probe = setInterval(async () => {
      // One PING at a time: a silent Redis would otherwise collect one per interval.
      if (this.#probing || this.#redis.client.status !== 'ready') return;
      this.#probing = true;
      const pong = await this.#redis.client.ping().catch(() => undefined);
      this.#probing = false;
      if (pong !== undefined) await this.#up();
    }, this.#probeMs);
    this.#probe.unref();
  }

  #stopProbe(): void {
    clearInterval(this.#probe);
    this.#probe = undefined;
  }

  readonly #onReady = (): void => {
    this.#watch.listen(this.#redis.client.stream);
    void this.#up();
  };

  readonly #onClose = (): void => {
    this.#down(new Error('connection to Redis closed'));
  };

  readonly #onError = (err: unknown): void => {
    this.#down(err);
  };
}
