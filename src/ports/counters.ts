// Counters: the state behind rate limits and budgets, behind one port so that embedded mode keeps it
// in process memory (cluster/local/counters.ts) and scale-out mode in Redis, where one admission is
// one atomic script. An admission checks every limit and budget that applies to a call and, only if
// all pass, takes from all of them at once; a refusal takes nothing. Settling corrects the
// reservation to what the call actually used.

/** Limits set on an API key, a project (`settings.rate_limits`) or per end user. */
export interface RateLimits {
  /** Requests per minute. */
  rpm?: number;
  /** Tokens per minute: estimated input plus max_tokens at admission, corrected after the call. */
  tpm?: number;
  /** Requests in flight at once (a stream counts until its end). */
  concurrency?: number;
}

/** Who set a rate limit: named in refusals and in the decision trace. */
export type RateScope = 'api_key' | 'project' | 'end_user';

export interface RateCheck {
  /** The counter's identity, e.g. `k:<key id>`, `p:<project id>`, `u:<project id>:<end user>`. */
  key: string;
  scope: RateScope;
  limits: RateLimits;
}

export interface BudgetCheck {
  /** `<budget id>:<member>:<period start ms>`: a new period is a new counter. */
  key: string;
  budgetId: string;
  limitUsd: number;
  /** `action: block`; alert-only budgets reserve and count but never refuse. */
  block: boolean;
}

/**
 * One call's admission. The checks depend only on who calls and what applies to them, so a caller
 * may reuse them from call to call; the amounts are this call's estimate.
 */
export interface AdmitRequest {
  /** Epoch ms. */
  now: number;
  /** Charged to every TPM limit at admission. */
  tokens: number;
  /** Reserved in every budget. */
  costUsd: number;
  rates: readonly RateCheck[];
  budgets: readonly BudgetCheck[];
}

/** A rate's state after an admission, for the x-ratelimit-* headers (the tightest limit of its kind). */
export interface RateState {
  limit: number;
  remaining: number;
  /** Until the limit is whole again. */
  resetMs: number;
}

export type Refusal =
  | {
      kind: 'rpm' | 'tpm' | 'concurrency';
      scope: RateScope;
      key: string;
      limit: number;
      /** Until a retry can pass; null when it never can (a request bigger than the whole tpm). */
      retryAfterMs: number | null;
      requests?: RateState;
      tokens?: RateState;
    }
  | { kind: 'budget'; budgetId: string; key: string; limitUsd: number; spentUsd: number; reservedUsd: number }
  /** Redis is away and the gateway is set to refuse what it cannot count there (`refuse`). */
  | { kind: 'unavailable'; retryAfterMs: number };

export interface Admitted {
  ok: true;
  requests: RateState | undefined;
  tokens: RateState | undefined;
}

export type AdmitResult = Admitted | { ok: false; refusal: Refusal };

export interface SettleRequest {
  now: number;
  /** The admitted request, unchanged. */
  admitted: AdmitRequest;
  /** What the call used: tokens in and out, and its cost (0 for a failure that cost nothing). */
  actualTokens: number;
  actualUsd: number;
}

/** A budget counter after settling: thresholds are judged on `previousUsd` -> `spentUsd`. */
export interface BudgetSpend {
  key: string;
  budgetId: string;
  previousUsd: number;
  spentUsd: number;
}

export interface BudgetCounter {
  spentUsd: number;
  reservedUsd: number;
}

/** In-memory adapters answer at once (no promise on the hot path); network ones with a promise. */
export type MaybePromise<T> = T | Promise<T>;

export interface Counters {
  admit(req: AdmitRequest): MaybePromise<AdmitResult>;
  settle(req: SettleRequest): MaybePromise<BudgetSpend[]>;
  /** Spend and reservations of budget counters (zero for unknown keys). */
  budgets(keys: readonly string[]): Promise<BudgetCounter[]>;
  /** Budget counters with this prefix (`<budget id>:`) and their state: the members of a budget. */
  budgetsWithPrefix(prefix: string): Promise<Array<BudgetCounter & { key: string }>>;
  /** Sets a budget counter's spend (rebuilt from the logs at start); reservations are kept. */
  seedSpend(key: string, usd: number): Promise<void>;
  close(): Promise<void>;
}
