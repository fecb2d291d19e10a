// The limits feature: a beforeRoute hook that admits each call against its rate limits and budgets
// (one atomic Counters admission: reserve now, settle when the call ends), budget threshold events
// (once per threshold, member and period, deduplicated in the store so restarts and other
// instances do not repeat them), and the budget status the management API shows. A call with no
// limit and no budget that applies costs a few map reads.
import type { Logger } from 'pino';
import type { BudgetMirror } from '../live/budgets.ts';
import type { Principal } from '../live/principals.ts';
import type { ProjectMirror } from '../live/projects.ts';
import type { PipelineFeature } from '../pipeline/hooks.ts';
import { addReplyHeaders, atCallEnd } from '../pipeline/lifecycle.ts';
import type { CallRecord } from '../pipeline/record.ts';
import { endUserOf, tagsOf } from '../pipeline/record.ts';
import type { ProxyCall } from '../pipeline/types.ts';
import type {
  AdmitRequest,
  AdmitResult,
  BudgetCheck,
  BudgetSpend,
  Counters,
  RateCheck,
  RateLimits,
  Refusal,
} from '../ports/counters.ts';
import type { PriceLookup } from '../providers/catalog/cost.ts';
import { type BudgetRecord, type BudgetStore, isPerMemberScope } from '../store/budgets.ts';
import type { SpendQuery } from '../store/request-logs.ts';
import { isEmptyObject, isRecord } from '../util/json.ts';
import { keyMetadataOfTags } from '../util/key-metadata.ts';
import { describeRefusal, rateHeaders, refusalError } from './answers.ts';
import { announce, crossesMark } from './budget-alerts.ts';
import {
  budgetChecks,
  budgetKey,
  budgetMembers,
  type CallIdentity,
  memberOfKey,
  modelMatches,
  rateChecks,
  rateLimitsOf,
} from './checks.ts';
import { type ConfigLookup, type Estimated, estimateCall } from './estimate.ts';
import { forecast, periodBounds } from './periods.ts';
import type { BudgetStatus, BudgetStatusSource } from './types.ts';

export type RefusalKind = Refusal['kind'];

export interface LimitsDeps {
  counters: Counters;
  budgets: BudgetMirror;
  projects: ProjectMirror;
  config: ConfigLookup;
  /** The org's price overrides: a reservation is priced as the call will be. */
  prices: PriceLookup;
  budgetStore: Pick<BudgetStore, 'markAlert'>;
  spendSince(q: SpendQuery): Promise<Array<{ member: string | null; model: string | null; costUsd: number }>>;
  logger: Logger;
  /** Told of every refusal (the composition root counts them for /metrics). */
  onRefusal?: (kind: RefusalKind) => void;
}

/** The key metadata of a key that has none (shared, so a call allocates nothing for it). */
const NO_PAIRS: Readonly<Record<string, string>> = Object.freeze({});
const round6 = (usd: number) => Math.round(usd * 1e6) / 1e6;

/** A key's checks, with what they were built from (compared by identity: the mirrors replace, never mutate). */
interface Plan {
  budgetsFrom: readonly BudgetRecord[];
  keyLimits: RateLimits | null;
  projectLimits: RateLimits | null;
  model: string;
  until: number;
  rates: readonly RateCheck[];
  budgets: readonly BudgetCheck[];
}

export class Limits implements BudgetStatusSource {
  readonly #d: LimitsDeps;
  readonly #plans = new WeakMap<Principal, Plan>();
  constructor(deps: LimitsDeps) {
    this.#d = deps;
  }

  /** The limits' place in the pipeline (registered in app.ts with the other features). */
  get feature(): PipelineFeature {
    return { beforeRoute: this.admit };
  }

  /** The beforeRoute hook: synchronous (no promise) when nothing applies to the call. */
  readonly admit = (call: ProxyCall): Promise<void> | undefined => {
    if (call.dryRun === true || call.hdr.dryRun) return undefined;
    const p = call.principal;
    const budgets = this.#d.budgets.forOrg(p.orgId);
    const settings = p.projectId === null ? undefined : this.#d.projects.cached(p.projectId)?.settings;
    const keyLimits = p.rateLimits ?? null;
    const projectLimits = settings ? rateLimitsOf(settings.rate_limits) : null;
    const endUserLimits = settings ? rateLimitsOf(settings.end_user_rate_limits) : null;
    if (budgets.length === 0 && keyLimits === null && projectLimits === null && endUserLimits === null)
      return undefined;
    return this.#admit(call, budgets, keyLimits, projectLimits, endUserLimits);
  };

  #admit(
    call: ProxyCall,
    budgets: readonly BudgetRecord[],
    keyLimits: RateLimits | null,
    projectLimits: RateLimits | null,
    endUserLimits: RateLimits | null,
  ): Promise<void> | undefined {
    const now = Date.now();
    const checks = this.#checks(call, budgets, keyLimits, projectLimits, endUserLimits, now);
    if (checks.rates.length === 0 && checks.budgets.length === 0) return undefined;
    const estimate = estimateCall(call, this.#d.config, this.#d.prices);
    const req: AdmitRequest = {
      now,
      tokens: estimate.tokens,
      costUsd: estimate.costUsd,
      rates: checks.rates,
      budgets: checks.budgets,
    };
    const res = this.#d.counters.admit(req);
    if (res instanceof Promise) return res.then((r) => this.#admitted(call, req, r));
    this.#admitted(call, req, res);
    return undefined;
  }

  /**
   * The checks of a call. They depend only on the key, its project's settings, the budgets, the
   * model and (when named) the end user and tags, so for the common call, with neither, the last
   * list computed for the same key is reused until something it was built from changes.
   */
  #checks(
    call: ProxyCall,
    budgets: readonly BudgetRecord[],
    keyLimits: RateLimits | null,
    projectLimits: RateLimits | null,
    endUserLimits: RateLimits | null,
    now: number,
  ): Plan {
    const p = call.principal;
    const endUser = endUserOf(call);
    const tags = tagsOf(call);
    const plain = endUser === null && isEmptyObject(tags);
    if (plain) {
      const plan = this.#plans.get(p);
      if (
        plan !== undefined &&
        plan.budgetsFrom === budgets &&
        plan.keyLimits === keyLimits &&
        plan.projectLimits === projectLimits &&
        plan.model === call.modelRequested &&
        now < plan.until
      ) {
        return plan;
      }
    }
    const id: CallIdentity = {
      orgId: p.orgId,
      projectId: p.projectId,
      keyId: p.keyId,
      endUser,
      tags,
      keyMetadata: p.keyMetadata ?? NO_PAIRS,
      model: call.modelRequested,
    };
    const { checks, until } = budgetChecks(id, budgets, now);
    const plan: Plan = {
      budgetsFrom: budgets,
      keyLimits,
      projectLimits,
      model: call.modelRequested,
      until,
      rates: rateChecks(id, { key: keyLimits, project: projectLimits, endUser: endUserLimits }),
      budgets: checks,
    };
    if (plain) this.#plans.set(p, plan);
    return plan;
  }

  #admitted(call: ProxyCall, req: AdmitRequest, res: AdmitResult): void {
    if (!res.ok) {
      call.hookTrace = {
        limits: { refused_by: describeRefusal(res.refusal, (id) => this.#d.budgets.get(id)?.name ?? null) },
      };
      throw this.#refused(res.refusal, call.principal);
    }
    // Added to what earlier features put there (tracing's traceparent), never in its place.
    addReplyHeaders(call, rateHeaders(res));
    atCallEnd(call, (record) => this.#settle(req, record));
  }

  /**
   * A batch at submission: refused (402, as a call would be) when the summed estimate of its items
   * exceeds what an applicable blocking budget has left. Nothing stays reserved, since each item
   * reserves and settles its own estimate as it runs; this keeps a batch that cannot fit from
   * starting at all.
   */
  async admitBatch(p: Principal, items: readonly Estimated[]): Promise<void> {
    const budgets = this.#d.budgets.forOrg(p.orgId);
    if (budgets.length === 0 || items.length === 0) return;
    const now = Date.now();
    const id: CallIdentity = {
      orgId: p.orgId,
      projectId: p.projectId,
      keyId: p.keyId,
      endUser: null,
      tags: {},
      keyMetadata: p.keyMetadata ?? NO_PAIRS,
      model: items[0].modelRequested,
    };
    const { checks } = budgetChecks(id, budgets, now);
    if (checks.length === 0) return;
    let costUsd = 0;
    let tokens = 0;
    for (const item of items) {
      const e = estimateCall(item, this.#d.config, this.#d.prices);
      costUsd += e.costUsd;
      tokens += e.tokens;
    }
    const req: AdmitRequest = { now, tokens, costUsd, rates: [], budgets: checks };
    const res = await this.#d.counters.admit(req);
    if (!res.ok) throw this.#refused(res.refusal, p);
    await this.#d.counters.settle({ now: Date.now(), admitted: req, actualTokens: 0, actualUsd: 0 });
  }

  /** Counts a refusal and gives the error that answers it. */
  #refused(r: Refusal, caller: Principal): Error {
    this.#d.onRefusal?.(r.kind);
    return refusalError(r, {
      name: (budgetId) => {
        const b = this.#d.budgets.get(budgetId);
        // A project or key budget that applied to this call is the caller's own; any other scope
        // (the org, a tag, an end user across projects) also counts other projects' spend.
        const own = b !== undefined && (b.scope.type === 'project' || b.scope.type === 'api_key');
        if (caller.projectId !== null && !own) return undefined;
        return b?.name ?? budgetId;
      },
    });
  }

  #settle(admitted: AdmitRequest, record: CallRecord | undefined): void {
    const tokens = record ? record.usage.input + record.usage.output : 0;
    const costUsd = record?.costUsd ?? 0;
    try {
      const spends = this.#d.counters.settle({ now: Date.now(), admitted, actualTokens: tokens, actualUsd: costUsd });
      if (spends instanceof Promise) spends.then((s) => this.#thresholds(s), this.#settleFailed);
      else this.#thresholds(spends);
    } catch (err) {
      this.#settleFailed(err);
    }
  }

  readonly #settleFailed = (err: unknown): void => {
    this.#d.logger.warn({ err }, 'settling a call against its limits failed');
  };

  /** Which spends crossed a mark of their budget (most calls cross none, and allocate nothing). */
  #thresholds(spends: BudgetSpend[]): void {
    for (const s of spends) {
      const b = this.#d.budgets.get(s.budgetId);
      if (b && crossesMark(b, s)) this.#announce(b, s, false);
    }
  }

  #announce(b: BudgetRecord, s: BudgetSpend, catchUp: boolean): void {
    announce(this.#d.budgetStore, b, s, catchUp).catch((err: unknown) =>
      this.#d.logger.warn({ err, budget: b.id }, 'recording a budget alert failed'),
    );
  }

  async status(b: BudgetRecord, member: string | null, now: number = Date.now()): Promise<BudgetStatus> {
    const bounds = periodBounds(b.period, now, b.createdAt);
    const [c] = await this.#d.counters.budgets([budgetKey(b, member ?? '', bounds.start)]);
    return this.#statusOf(b, c?.spentUsd ?? 0, c?.reservedUsd ?? 0, bounds, now);
  }

  #statusOf(
    b: BudgetRecord,
    spent: number,
    reserved: number,
    bounds: { start: number; end: number | null },
    now: number,
  ): BudgetStatus {
    return {
      spent_usd: round6(spent),
      reserved_usd: round6(reserved),
      remaining_usd: round6(Math.max(0, b.limitUsd - spent - reserved)),
      period_start: new Date(bounds.start).toISOString(),
      period_end: bounds.end === null ? null : new Date(bounds.end).toISOString(),
      exceeded: spent >= b.limitUsd,
      forecast_usd: forecast(round6(spent), bounds, now),
    };
  }

  async members(b: BudgetRecord, limit: number, now: number = Date.now()) {
    const bounds = periodBounds(b.period, now, b.createdAt);
    const suffix = `:${bounds.start}`;
    const rows = (await this.#d.counters.budgetsWithPrefix(`${b.id}:`)).filter((r) => r.key.endsWith(suffix));
    rows.sort((x, y) => y.spentUsd - x.spentUsd);
    return rows.slice(0, limit).map((r) => ({
      member: memberOfKey(r.key),
      status: this.#statusOf(b, r.spentUsd, r.reservedUsd, bounds, now),
    }));
  }

  /** Seeds the budget's current-period counters from the request log. */
  /** `raiseOnly`: a counter already above the log's sum keeps its value (shared counters, at start). */
  async rebuild(b: BudgetRecord, now: number = Date.now(), opts: { raiseOnly?: boolean } = {}): Promise<void> {
    const bounds = periodBounds(b.period, now, b.createdAt);
    const { scope } = b;
    const column = {
      org: null,
      project: 'project_id',
      api_key: 'api_key_id',
      end_user: 'end_user',
      tag: 'tags',
      // Logged among the row's tags (src/util/key-metadata.ts).
      key_metadata: 'tags',
    } as const;
    const perMember = isPerMemberScope(scope);
    const rows = await this.#d.spendSince({
      orgId: b.orgId,
      sinceIso: new Date(bounds.start).toISOString(),
      member: perMember || scope.type === 'tag' || scope.type === 'key_metadata' ? column[scope.type] : null,
      where: {
        ...(scope.type === 'project' && scope.id !== undefined ? { projectId: scope.id } : {}),
        ...(scope.type === 'api_key' && scope.id !== undefined ? { apiKeyId: scope.id } : {}),
        ...(scope.type === 'end_user' && scope.id !== undefined ? { endUser: scope.id } : {}),
      },
    });
    const sums = new Map<string, number>();
    for (const r of rows) {
      if (!modelMatches(b.models, r.model ?? '')) continue;
      for (const member of this.#membersOfRow(b, r.member)) sums.set(member, (sums.get(member) ?? 0) + r.costUsd);
    }
    const seeds = [...sums].map(([member, usd]) => ({ key: budgetKey(b, member, bounds.start), usd }));
    const current = opts.raiseOnly ? await this.#d.counters.budgets(seeds.map((x) => x.key)) : undefined;
    for (const [i, { key, usd }] of seeds.entries()) {
      if (current !== undefined && current[i].spentUsd >= usd) continue;
      await this.#d.counters.seedSpend(key, usd);
      // Spend the log already holds crossed no mark through a call: announce where it stands.
      this.#announce(b, { key, budgetId: b.id, previousUsd: 0, spentUsd: usd }, true);
    }
  }

  /** Which counters of `b` a logged row's grouping value belongs to (tags arrive as JSON text). */
  #membersOfRow(b: BudgetRecord, value: string | null): readonly string[] {
    if (b.scope.type !== 'tag' && b.scope.type !== 'key_metadata')
      return isPerMemberScope(b.scope) ? (value === null ? [] : [value]) : [''];
    let tags: Record<string, string> = {};
    try {
      const parsed: unknown = value === null ? {} : JSON.parse(value);
      if (isRecord(parsed)) tags = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
    } catch {}
    return budgetMembers(b, {
      orgId: b.orgId,
      projectId: null,
      keyId: '',
      endUser: null,
      tags,
      keyMetadata: keyMetadataOfTags(tags),
      model: '',
    });
  }

  /** Current-period spend of each live budget (all members together), for the /metrics gauge. */
  async spendByBudget(now: number = Date.now()): Promise<Array<{ budgetId: string; spentUsd: number }>> {
    const out: Array<{ budgetId: string; spentUsd: number }> = [];
    for (const b of this.#d.budgets.all()) {
      const suffix = `:${periodBounds(b.period, now, b.createdAt).start}`;
      const rows = await this.#d.counters.budgetsWithPrefix(`${b.id}:`);
      let spent = 0;
      for (const r of rows) if (r.key.endsWith(suffix)) spent += r.spentUsd;
      out.push({ budgetId: b.id, spentUsd: round6(spent) });
    }
    return out;
  }

  /** Every live budget's counters, at start (after the journal replay has been committed). */
  async rebuildAll(all: readonly BudgetRecord[], opts: { raiseOnly?: boolean } = {}): Promise<void> {
    for (const b of all) {
      try {
        await this.rebuild(b, Date.now(), opts);
      } catch (err) {
        this.#d.logger.error({ err, budget: b.id }, 'could not rebuild a budget from the request log');
      }
    }
  }
}
