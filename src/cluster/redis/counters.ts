// Counters in Redis (scale-out mode): the same semantics as cluster/local/counters.ts, shared by
// every instance. An admission is one script run (scripts.ts), so it is atomic across instances and
// costs one round trip; so is a settle.
//
// Time is the request's `now`, not the Redis server's clock: the contract passes it, and it keeps the
// arithmetic identical to the local adapter. Instances' clocks then meet in one counter: one whose
// clock runs d ms behind the others finds a counter d ms fuller than they do, one running ahead
// finds it emptier, an error of d / (60 s / limit) requests either way (well under one for
// NTP-synced hosts). Key expiry allows a minute of slack for the same reason.
//
// What stays behind when an instance dies between admit and settle: its concurrency slots and its
// budget reservations are leases that run out after `leaseMs` (a reservation is given back by the
// next admission to that budget after its lease; the request log never counted it).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type {
  AdmitRequest,
  AdmitResult,
  BudgetCounter,
  BudgetSpend,
  Counters,
  RateState,
  SettleRequest,
} from '../../ports/counters.ts';
import type { OnceClaims } from '../types.ts';
import { LuaScript, neverSent, strings } from './client.ts';
import { ADMIT_LUA, BUDGETS_LUA, BUDGETS_WITH_PREFIX_LUA, SEED_LUA, SETTLE_LUA } from './scripts.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface RedisCountersOptions {
  /** Taken over: close() closes it. Create it with createRedisClient (fails fast). */
  client: Redis;
  /** Prefix of every key, e.g. `sy:prod:` (default `sy:`). */
  keyPrefix?: string;
  /** Names this instance's admissions (default: a random UUID). */
  instanceId?: string;
  /**
   * A concurrency slot is freed, and a budget reservation given back, at settle, or after this long
   * if the settle never comes (the instance died). Longer than the longest call, streams included
   * (default 15 minutes): a call still running after it no longer holds its reservation.
   */
  leaseMs?: number;
  /** A rate counter expires this long after it is whole again (default a minute: clock skew). */
  rateSlackMs?: number;
  /**
   * A budget counter expires this long after its last use; null keeps it forever. The default, 40
   * days, outlives the longest period (a month) whatever the day a counter was last used in it.
   * `total` budgets idle that long lose their counter, as after a restart in embedded mode: the
   * request log rebuilds it (within the log's retention, 30 days by default).
   */
  budgetTtlMs?: number | null;
  /** How long a replayed settle can still find its admission (default a day). */
  markerTtlMs?: number;
  /** Told what each reply showed of the shared counters (kept for the time Redis is away). */
  views?: CounterViews;
}

/**
 * What replies show of the shared counters. Times are epoch ms: a TAT is when a rate's counter is
 * whole again (GCRA's theoretical arrival time); undefined where the reply did not say.
 */
export interface CounterViews {
  rate(key: string, requestsTat: number | undefined, tokensTat: number | undefined, inFlight: number | undefined): void;
  budget(key: string, spentUsd: number, reservedUsd: number | undefined): void;
}

/** Whether settling this admission changes anything (otherwise no settle round trip at all). */
export function hasSettleWork(req: AdmitRequest): boolean {
  if (req.budgets.length > 0) return true;
  return req.rates.some((r) => r.limits.concurrency !== undefined || (r.limits.tpm !== undefined && req.tokens > 0));
}

const num = (s: string): number => Number(s);
const opt = (v: number | undefined): string => (v === undefined ? '' : String(v));
const round = (usd: number) => Math.round(usd * 1e9) / 1e9;

export class RedisCounters implements Counters, OnceClaims {
  readonly client: Redis;
  readonly #p: string;
  readonly #instance: string;
  readonly #leaseMs: number;
  readonly #slackMs: number;
  readonly #budgetTtlMs: number;
  readonly #markerTtlMs: number;
  #views: CounterViews | undefined;
  /** Admission ids not yet settled, oldest first (one request object may be admitted again). */
  readonly #ids = new WeakMap<AdmitRequest, string[]>();
  #seq = 0;
  readonly #admit = new LuaScript(ADMIT_LUA);
  readonly #settle = new LuaScript(SETTLE_LUA);
  readonly #budgets = new LuaScript(BUDGETS_LUA);
  readonly #withPrefix = new LuaScript(BUDGETS_WITH_PREFIX_LUA);
  readonly #seed = new LuaScript(SEED_LUA);

  constructor(opts: RedisCountersOptions) {
    this.client = opts.client;
    this.#p = opts.keyPrefix ?? 'sy:';
    this.#instance = opts.instanceId ?? randomUUID();
    this.#leaseMs = opts.leaseMs ?? 15 * MINUTE;
    this.#slackMs = opts.rateSlackMs ?? MINUTE;
    this.#budgetTtlMs = opts.budgetTtlMs === null ? 0 : (opts.budgetTtlMs ?? 40 * DAY);
    this.#markerTtlMs = opts.markerTtlMs ?? DAY;
    this.#views = opts.views;
  }

  get instanceId(): string {
    return this.#instance;
  }

  /** From now on, tells `views` what each reply shows of the shared counters. */
  observe(views: CounterViews): void {
    this.#views = views;
  }

  /**
   * Rejects when Redis does not answer; the admission may then still have been taken on the server,
   * which a later `settle(..., { replay: true })` undoes if so (FailoverCounters does).
   */
  async admit(req: AdmitRequest): Promise<AdmitResult> {
    const settles = hasSettleWork(req);
    const id = `${this.#instance}:${(++this.#seq).toString(36)}`;
    if (settles) this.#pushId(req, id);
    const args: string[] = [
      String(req.now),
      String(req.tokens),
      String(req.costUsd),
      String(req.rates.length),
      String(req.budgets.length),
      id,
      String(this.#leaseMs),
      String(this.#slackMs),
      String(this.#budgetTtlMs),
      String(settles ? this.#markerTtlMs : 0),
    ];
    for (const r of req.rates) args.push(opt(r.limits.rpm), opt(r.limits.tpm), opt(r.limits.concurrency));
    for (const b of req.budgets) args.push(String(b.limitUsd), b.block ? '1' : '0', b.key);
    let raw: unknown;
    try {
      raw = await this.#admit.run(this.client, this.#keys(req, id), args);
    } catch (err) {
      // Kept for an undo only if the script may have run.
      if (settles && neverSent(err)) this.#dropId(req, id);
      throw err;
    }
    const res = this.#admitted(req, strings(raw));
    if (!res.ok && settles) this.#dropId(req, id);
    return res;
  }

  /**
   * With `replay`, applies only if the admission is still unsettled on the server (its marker is
   * there), so a settle retried after a timeout, or one undoing an admission whose answer was lost,
   * counts at most once; a replay that finds nothing answers [].
   */
  settle(req: SettleRequest, opts: { replay?: boolean } = {}): BudgetSpend[] | Promise<BudgetSpend[]> {
    const { admitted } = req;
    if (!hasSettleWork(admitted)) return [];
    const ids = this.#ids.get(admitted);
    const id = ids?.shift() ?? '';
    const args: string[] = [
      String(req.now),
      String(admitted.tokens),
      String(admitted.costUsd),
      String(req.actualTokens),
      String(req.actualUsd),
      String(admitted.rates.length),
      String(admitted.budgets.length),
      id,
      String(this.#slackMs),
      String(this.#budgetTtlMs),
      opts.replay ? '1' : '0',
    ];
    for (const r of admitted.rates) args.push(opt(r.limits.tpm), r.limits.concurrency === undefined ? '0' : '1');
    for (const b of admitted.budgets) args.push(b.key);
    return this.#settle.run(this.client, this.#keys(admitted, id), args).then(
      (raw) => {
        const reply = strings(raw);
        if (reply[0] === 'skip') return [];
        const m = admitted.budgets.length;
        const views = this.#views;
        if (views !== undefined) {
          admitted.rates.forEach((r, i) => {
            const busy = reply[1 + 3 * m + i];
            if (busy !== '' && busy !== undefined) views.rate(r.key, undefined, undefined, num(busy));
          });
        }
        return admitted.budgets.map((b, j) => {
          const spentUsd = num(reply[2 + 2 * j]);
          views?.budget(b.key, spentUsd, num(reply[1 + 2 * m + j]));
          return { key: b.key, budgetId: b.budgetId, previousUsd: num(reply[1 + 2 * j]), spentUsd };
        });
      },
      (err: unknown) => {
        // A retry of this settle must name the same admission.
        if (id !== '') this.#ids.set(admitted, [id, ...(ids ?? [])]);
        throw err;
      },
    );
  }

  async budgets(keys: readonly string[]): Promise<BudgetCounter[]> {
    if (keys.length === 0) return [];
    const reply = strings(
      await this.#budgets.run(
        this.client,
        keys.map((k) => `${this.#p}b:${k}`),
        [],
      ),
    );
    return keys.map((_, i) => ({ spentUsd: num(reply[2 * i] || '0'), reservedUsd: num(reply[2 * i + 1] || '0') }));
  }

  async budgetsWithPrefix(prefix: string): Promise<Array<BudgetCounter & { key: string }>> {
    const reply = strings(await this.#withPrefix.run(this.client, [`${this.#p}bidx`], [prefix, `${this.#p}b:`]));
    const out: Array<BudgetCounter & { key: string }> = [];
    for (let i = 0; i + 2 < reply.length; i += 3) {
      out.push({ key: reply[i], spentUsd: num(reply[i + 1]), reservedUsd: num(reply[i + 2]) });
    }
    return out;
  }

  async seedSpend(key: string, usd: number): Promise<void> {
    await this.#seed.run(
      this.client,
      [`${this.#p}b:${key}`, `${this.#p}bidx`],
      [String(round(usd)), key, String(this.#budgetTtlMs)],
    );
  }

  /** True for the first claim of `key` in the cluster until `ttlMs` has passed (SET NX PX). */
  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(`${this.#p}once:${key}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
  }

  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      // Not connected: nothing to say goodbye to.
      this.client.disconnect();
    }
  }

  #keys(req: AdmitRequest, id: string): string[] {
    const p = this.#p;
    const keys: string[] = [];
    for (const r of req.rates) keys.push(`${p}r:${r.key}`, `${p}c:${r.key}`);
    for (const b of req.budgets) keys.push(`${p}b:${b.key}`);
    keys.push(`${p}bidx`, `${p}a:${id}`);
    for (const b of req.budgets) keys.push(`${p}l:${b.key}`);
    return keys;
  }

  #admitted(req: AdmitRequest, reply: string[]): AdmitResult {
    const [kind, at] = reply;
    const views = this.#views;
    if (kind === 'ok') {
      let requests: RateState | undefined;
      let tokens: RateState | undefined;
      req.rates.forEach((r, i) => {
        const [rr, rReset, tr, tReset, busy] = reply.slice(1 + 5 * i, 6 + 5 * i);
        if (rr !== '' && r.limits.rpm !== undefined) {
          requests = tighter(requests, { limit: r.limits.rpm, remaining: num(rr), resetMs: num(rReset) });
        }
        if (tr !== '' && r.limits.tpm !== undefined) {
          tokens = tighter(tokens, { limit: r.limits.tpm, remaining: num(tr), resetMs: num(tReset) });
        }
        views?.rate(
          r.key,
          rr === '' ? undefined : req.now + num(rReset),
          tr === '' ? undefined : req.now + num(tReset),
          busy === '' || busy === undefined ? undefined : num(busy),
        );
      });
      if (views !== undefined) {
        const from = 1 + 5 * req.rates.length;
        for (const [j, b] of req.budgets.entries())
          views.budget(b.key, num(reply[from + 2 * j]), num(reply[from + 2 * j + 1]));
      }
      return { ok: true, requests, tokens };
    }
    if (kind === 'budget') {
      const b = req.budgets[num(at) - 1];
      const [spent, reserved] = reply.slice(2);
      views?.budget(b.key, num(spent), num(reserved));
      return {
        ok: false,
        refusal: {
          kind: 'budget',
          budgetId: b.budgetId,
          key: b.key,
          limitUsd: b.limitUsd,
          spentUsd: num(spent),
          reservedUsd: num(reserved),
        },
      };
    }
    const check = req.rates[num(at) - 1];
    const base = { scope: check.scope, key: check.key };
    if (kind === 'concurrency') {
      views?.rate(check.key, undefined, undefined, check.limits.concurrency);
      return {
        ok: false,
        refusal: { kind, ...base, limit: check.limits.concurrency ?? 0, retryAfterMs: null },
      };
    }
    const [retry, remaining, reset] = reply.slice(2);
    if (kind === 'rpm') {
      const limit = check.limits.rpm ?? 0;
      const state = { limit, remaining: num(remaining), resetMs: num(reset) };
      // The local adapter answers Infinity here (a limit under one per minute): the same value.
      const retryAfterMs = retry === '' ? Number.POSITIVE_INFINITY : num(retry);
      views?.rate(check.key, req.now + num(reset), undefined, undefined);
      return { ok: false, refusal: { kind, ...base, limit, retryAfterMs, requests: state } };
    }
    if (kind === 'tpm') {
      const limit = check.limits.tpm ?? 0;
      const state = { limit, remaining: num(remaining), resetMs: num(reset) };
      views?.rate(check.key, undefined, req.now + num(reset), undefined);
      return {
        ok: false,
        refusal: { kind, ...base, limit, retryAfterMs: retry === '' ? null : num(retry), tokens: state },
      };
    }
    throw new Error(`unexpected reply from the admission script: ${reply.join(',')}`);
  }

  #pushId(req: AdmitRequest, id: string): void {
    const ids = this.#ids.get(req);
    if (ids) ids.push(id);
    else this.#ids.set(req, [id]);
  }

  #dropId(req: AdmitRequest, id: string): void {
    const ids = this.#ids.get(req);
    const at = ids?.indexOf(id) ?? -1;
    if (ids && at >= 0) ids.splice(at, 1);
  }
}

/** The tighter of two states of one kind, as the local adapter picks it. */
function tighter(a: RateState | undefined, b: RateState): RateState {
  return a === undefined || b.remaining < a.remaining ? b : a;
}
