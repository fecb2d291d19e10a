// `share` mode: while Redis is away, each instance admits at most its share of what was left of a
// limit when it last heard from Redis, divided by the instances alive then (registry.ts). Every
// Redis answer updates what this instance knows of the shared counters (the views below); an outage
// starts a counter set of its own whose limits are the shares:
// - rpm and tpm: the TAT Redis last showed, paid at limit / N, so the room left (limit minus what
//   the TAT stands for) is divided by N, and so is the refill;
// - concurrency: (limit - calls in flight then) / N, rounded down;
// - a blocking budget: (limit - spent - reserved then) / N.
// A counter this instance never saw counts as whole. Each instance's view is at most the limit, so
// the cluster together admits no more than the largest view (plus the refill) while Redis is away:
// the overshoot over an exact count is at most what other instances took after this one's last
// answer. See README, Scale out, for the figures.
import type {
  AdmitRequest,
  AdmitResult,
  BudgetCheck,
  BudgetSpend,
  RateCheck,
  RateLimits,
  Refusal,
  SettleRequest,
} from '../../ports/counters.ts';
import { LocalCounters } from '../local/counters.ts';
import type { CounterViews } from './counters.ts';

interface RateView {
  requestsTat: number;
  tokensTat: number;
  inFlight: number;
}

interface BudgetView {
  spentUsd: number;
  reservedUsd: number;
}

interface Outage {
  n: number;
  counters: LocalCounters;
  /** Fixed at a counter's first use in the outage, so that a late answer does not move them. */
  concurrency: Map<string, number>;
  budgetRoom: Map<string, number>;
  seeded: Set<string>;
  /** What each budget counter had spent when the outage began: local spend is added to it. */
  baseSpent: Map<string, number>;
}

/** An admission answered without Redis, as its settle needs it. */
export interface HeldAdmission {
  counters: LocalCounters;
  /** What was admitted there (the shares, for a share admission). */
  admitted: AdmitRequest;
  baseSpent?: Map<string, number>;
}

const round = (usd: number) => Math.round(usd * 1e9) / 1e9;

export class ShareCounters implements CounterViews {
  readonly #rates = new Map<string, RateView>();
  readonly #budgets = new Map<string, BudgetView>();
  readonly #alive: () => number;
  readonly #maxViews: number;
  #outage: Outage | undefined;

  /** `alive`: the instances alive when Redis last answered (0 when never: this one counts alone). */
  constructor(alive: () => number, maxViews = 100_000) {
    this.#alive = alive;
    this.#maxViews = maxViews;
  }

  rate(key: string, requestsTat: number | undefined, tokensTat: number | undefined, inFlight: number | undefined) {
    let v = this.#rates.get(key);
    if (v === undefined) {
      v = { requestsTat: 0, tokensTat: 0, inFlight: 0 };
      this.#rates.set(key, v);
      if (this.#rates.size > this.#maxViews) this.#evict(this.#rates);
    }
    if (requestsTat !== undefined) v.requestsTat = requestsTat;
    if (tokensTat !== undefined) v.tokensTat = tokensTat;
    if (inFlight !== undefined) v.inFlight = inFlight;
  }

  budget(key: string, spentUsd: number, reservedUsd: number | undefined): void {
    const v = this.#budgets.get(key);
    if (v !== undefined) {
      v.spentUsd = spentUsd;
      if (reservedUsd !== undefined) v.reservedUsd = reservedUsd;
      return;
    }
    this.#budgets.set(key, { spentUsd, reservedUsd: reservedUsd ?? 0 });
    if (this.#budgets.size > this.#maxViews) this.#evict(this.#budgets);
  }

  /** The instances the current (or next) outage divides by. */
  get shareOf(): number {
    return this.#outage?.n ?? Math.max(1, this.#alive());
  }

  /** Redis is back: the next outage starts from fresh views. */
  end(): void {
    this.#outage = undefined;
  }

  admit(req: AdmitRequest): { res: AdmitResult; held?: HeldAdmission } {
    const o = this.#begin();
    const admitted: AdmitRequest = {
      now: req.now,
      tokens: req.tokens,
      costUsd: req.costUsd,
      rates: req.rates.map((r) => this.#rateShare(o, r)),
      budgets: req.budgets.map((b) => this.#budgetShare(o, b)),
    };
    const res = o.counters.admit(admitted);
    if (!res.ok) return { res: { ok: false, refusal: this.#explain(res.refusal, req, o) } };
    return { res, held: { counters: o.counters, admitted, baseSpent: o.baseSpent } };
  }

  #begin(): Outage {
    this.#outage ??= {
      n: Math.max(1, this.#alive()),
      counters: new LocalCounters(),
      concurrency: new Map(),
      budgetRoom: new Map(),
      seeded: new Set(),
      baseSpent: new Map(),
    };
    return this.#outage;
  }

  #rateShare(o: Outage, r: RateCheck): RateCheck {
    const { rpm, tpm, concurrency } = r.limits;
    const limits: RateLimits = {};
    if (rpm !== undefined) limits.rpm = rpm / o.n;
    if (tpm !== undefined) limits.tpm = tpm / o.n;
    const v = this.#rates.get(r.key);
    if (concurrency !== undefined) {
      let c = o.concurrency.get(r.key);
      if (c === undefined) {
        c = Math.floor(Math.max(0, concurrency - (v?.inFlight ?? 0)) / o.n);
        o.concurrency.set(r.key, c);
      }
      limits.concurrency = c;
    }
    if (!o.seeded.has(r.key)) {
      o.seeded.add(r.key);
      o.counters.seedRate(r.key, {
        requestsTat: v?.requestsTat ?? 0,
        tokensTat: v?.tokensTat ?? 0,
        rpm: limits.rpm ?? 0,
        tpm: limits.tpm ?? 0,
      });
    }
    return { key: r.key, scope: r.scope, limits };
  }

  #budgetShare(o: Outage, b: BudgetCheck): BudgetCheck {
    const v = this.#budgets.get(b.key);
    if (!o.baseSpent.has(b.key)) o.baseSpent.set(b.key, v?.spentUsd ?? 0);
    if (!b.block) return b;
    let room = o.budgetRoom.get(b.key);
    if (room === undefined) {
      room = round(Math.max(0, b.limitUsd - (v?.spentUsd ?? 0) - (v?.reservedUsd ?? 0)) / o.n);
      o.budgetRoom.set(b.key, room);
    }
    return { ...b, limitUsd: room };
  }

  /** A refusal in the configured limits' terms, not the shares'. */
  #explain(r: Refusal, req: AdmitRequest, o: Outage): Refusal {
    if (r.kind === 'budget') {
      const b = req.budgets.find((x) => x.key === r.key);
      const v = this.#budgets.get(r.key);
      return {
        ...r,
        limitUsd: b?.limitUsd ?? r.limitUsd,
        spentUsd: round((o.baseSpent.get(r.key) ?? 0) + r.spentUsd),
        reservedUsd: round((v?.reservedUsd ?? 0) + r.reservedUsd),
      };
    }
    if (r.kind === 'unavailable') return r;
    const check = req.rates.find((x) => x.key === r.key);
    const limit =
      (r.kind === 'rpm' ? check?.limits.rpm : r.kind === 'tpm' ? check?.limits.tpm : check?.limits.concurrency) ??
      r.limit;
    // A share under one request a minute never fits; the caller may try again once Redis is back.
    const retryAfterMs = r.retryAfterMs !== null && !Number.isFinite(r.retryAfterMs) ? 60_000 : r.retryAfterMs;
    return { ...r, limit, retryAfterMs };
  }

  #evict(m: Map<string, unknown>): void {
    const first = m.keys().next();
    if (first.done !== true) m.delete(first.value);
  }
}

/** Settles an admission answered without Redis where it was admitted, in the cluster's spend terms. */
export function settleHeld(held: HeldAdmission, req: SettleRequest): BudgetSpend[] {
  const spends = held.counters.settle({ ...req, admitted: held.admitted });
  const base = held.baseSpent;
  if (base === undefined) return spends;
  return spends.map((s) => {
    const at = base.get(s.key) ?? 0;
    return { ...s, previousUsd: round(at + s.previousUsd), spentUsd: round(at + s.spentUsd) };
  });
}

/** A settle that only adds spend: the admission it stands for was never reserved in Redis. */
export function spendOnly(req: SettleRequest): SettleRequest {
  const { admitted } = req;
  return {
    now: req.now,
    admitted: { now: admitted.now, tokens: 0, costUsd: 0, rates: [], budgets: admitted.budgets },
    actualTokens: 0,
    actualUsd: req.actualUsd,
  };
}
