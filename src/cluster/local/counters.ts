// Counters in process memory (embedded mode): admission checks every limit and budget of a call
// and applies them all or none, in one synchronous step, so concurrent calls cannot both pass a
// check the second one should fail. Rates use GCRA (gcra.ts); concurrency is a count of calls in
// flight; a budget is spent plus reserved dollars per (budget, member, period).
import type {
  AdmitRequest,
  AdmitResult,
  BudgetCounter,
  BudgetSpend,
  Counters,
  RateCheck,
  RateState,
  Refusal,
  SettleRequest,
} from '../../ports/counters.ts';
import type { OnceClaims } from '../types.ts';
import { LocalClaims } from './claims.ts';
import { adjustTat, gcra } from './gcra.ts';

interface RateCounter {
  requestsTat: number;
  tokensTat: number;
  inFlight: number;
  /** The limits the TATs were paid at; a changed limit rescales them (see `rescaled`). */
  rpm: number;
  tpm: number;
}

/**
 * A TAT paid at `from` per minute, re-expressed at `to`: the backlog it stands for keeps its share
 * of a minute, so raising a limit frees room at once and lowering it does not forgive the past.
 */
function rescaled(tat: number, now: number, from: number, to: number): number {
  return from === to || tat <= now ? tat : now + ((tat - now) * from) / to;
}

// Sub-cent dust from float sums must not flip a comparison at the limit.
const EPSILON_USD = 1e-9;
const round = (usd: number) => Math.round(usd * 1e9) / 1e9;

/** The tighter of two states of one kind: the one with less room left. */
function tighter(a: RateState | undefined, b: RateState): RateState {
  return a === undefined || b.remaining < a.remaining ? b : a;
}

export class LocalCounters implements Counters, OnceClaims {
  readonly #rates = new Map<string, RateCounter>();
  readonly #budgets = new Map<string, BudgetCounter>();
  readonly #claims = new LocalClaims();
  #admissions = 0;

  /** Synchronous, which is also what makes the local admission atomic. */
  admit(req: AdmitRequest): AdmitResult {
    const { now } = req;
    const planned: Array<{ c: RateCounter; check: RateCheck; requestsTat?: number; tokensTat?: number }> = [];
    let requests: RateState | undefined;
    let tokens: RateState | undefined;
    for (const check of req.rates) {
      const c = this.#rates.get(check.key) ?? { requestsTat: 0, tokensTat: 0, inFlight: 0, rpm: 0, tpm: 0 };
      const { rpm, tpm, concurrency } = check.limits;
      if (rpm !== undefined && c.rpm !== rpm) {
        c.requestsTat = rescaled(c.requestsTat, now, c.rpm || rpm, rpm);
        c.rpm = rpm;
      }
      if (tpm !== undefined && c.tpm !== tpm) {
        c.tokensTat = rescaled(c.tokensTat, now, c.tpm || tpm, tpm);
        c.tpm = tpm;
      }
      const step: (typeof planned)[number] = { c, check };
      if (concurrency !== undefined && c.inFlight >= concurrency) {
        return refuse({
          kind: 'concurrency',
          scope: check.scope,
          key: check.key,
          limit: concurrency,
          retryAfterMs: null,
        });
      }
      if (rpm !== undefined) {
        const v = gcra(c.requestsTat, now, rpm, 1);
        const state = { limit: rpm, remaining: v.remaining, resetMs: v.resetMs };
        if (!v.ok) {
          return refuse({
            kind: 'rpm',
            scope: check.scope,
            key: check.key,
            limit: rpm,
            retryAfterMs: v.retryAfterMs,
            requests: state,
          });
        }
        step.requestsTat = v.tat;
        requests = tighter(requests, state);
      }
      if (tpm !== undefined && req.tokens > 0) {
        const v = gcra(c.tokensTat, now, tpm, req.tokens);
        const state = { limit: tpm, remaining: v.remaining, resetMs: v.resetMs };
        if (!v.ok) {
          const retryAfterMs = Number.isFinite(v.retryAfterMs) ? v.retryAfterMs : null;
          return refuse({ kind: 'tpm', scope: check.scope, key: check.key, limit: tpm, retryAfterMs, tokens: state });
        }
        step.tokensTat = v.tat;
        tokens = tighter(tokens, state);
      }
      planned.push(step);
    }
    for (const b of req.budgets) {
      if (!b.block) continue;
      const s = this.#budgets.get(b.key) ?? { spentUsd: 0, reservedUsd: 0 };
      if (
        s.spentUsd + EPSILON_USD >= b.limitUsd ||
        s.spentUsd + s.reservedUsd + req.costUsd > b.limitUsd + EPSILON_USD
      ) {
        return refuse({ kind: 'budget', budgetId: b.budgetId, key: b.key, limitUsd: b.limitUsd, ...s });
      }
    }
    // Every check passed: take from all of them.
    for (const { c, check, requestsTat, tokensTat } of planned) {
      if (requestsTat !== undefined) c.requestsTat = requestsTat;
      if (tokensTat !== undefined) c.tokensTat = tokensTat;
      if (check.limits.concurrency !== undefined) c.inFlight++;
      this.#rates.set(check.key, c);
    }
    for (const b of req.budgets) {
      const s = this.#budgets.get(b.key) ?? { spentUsd: 0, reservedUsd: 0 };
      s.reservedUsd = round(s.reservedUsd + req.costUsd);
      this.#budgets.set(b.key, s);
    }
    if (++this.#admissions % 10_000 === 0) this.#sweep(now);
    return { ok: true, requests, tokens };
  }

  settle(req: SettleRequest): BudgetSpend[] {
    const { admitted, now } = req;
    for (const check of admitted.rates) {
      const c = this.#rates.get(check.key);
      if (!c) continue;
      if (check.limits.concurrency !== undefined) c.inFlight = Math.max(0, c.inFlight - 1);
      const { tpm } = check.limits;
      if (tpm !== undefined && admitted.tokens > 0 && req.actualTokens !== admitted.tokens) {
        c.tokensTat = adjustTat(c.tokensTat, now, tpm, req.actualTokens - admitted.tokens);
      }
    }
    const out: BudgetSpend[] = [];
    for (const b of admitted.budgets) {
      const s = this.#budgets.get(b.key) ?? { spentUsd: 0, reservedUsd: 0 };
      const previousUsd = s.spentUsd;
      s.reservedUsd = Math.max(0, round(s.reservedUsd - admitted.costUsd));
      s.spentUsd = round(s.spentUsd + req.actualUsd);
      this.#budgets.set(b.key, s);
      out.push({ key: b.key, budgetId: b.budgetId, previousUsd, spentUsd: s.spentUsd });
    }
    return out;
  }

  budgets(keys: readonly string[]): Promise<BudgetCounter[]> {
    return Promise.resolve(keys.map((k) => ({ ...(this.#budgets.get(k) ?? { spentUsd: 0, reservedUsd: 0 }) })));
  }

  budgetsWithPrefix(prefix: string): Promise<Array<BudgetCounter & { key: string }>> {
    const out: Array<BudgetCounter & { key: string }> = [];
    for (const [key, s] of this.#budgets) if (key.startsWith(prefix)) out.push({ key, ...s });
    return Promise.resolve(out);
  }

  seedSpend(key: string, usd: number): Promise<void> {
    const s = this.#budgets.get(key) ?? { spentUsd: 0, reservedUsd: 0 };
    s.spentUsd = round(usd);
    this.#budgets.set(key, s);
    return Promise.resolve();
  }

  /**
   * Sets a rate counter's TATs as paid at `rpm` / `tpm` (so that an admission at those limits does
   * not rescale them): an outage's share counters start from what Redis last showed.
   */
  seedRate(key: string, seed: { requestsTat: number; tokensTat: number; rpm: number; tpm: number }): void {
    const c = this.#rates.get(key);
    this.#rates.set(key, { inFlight: c?.inFlight ?? 0, ...seed });
  }

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return this.#claims.claimOnce(key, ttlMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Drops rate counters that are whole again and idle (end users come and go). */
  #sweep(now: number): void {
    for (const [key, c] of this.#rates) {
      if (c.inFlight === 0 && c.requestsTat <= now && c.tokensTat <= now) this.#rates.delete(key);
    }
  }
}

function refuse(refusal: Refusal): AdmitResult {
  return { ok: false, refusal };
}
