// Budgets: spend limits over a scope and a calendar period. Deletion is soft. Create, update and
// delete publish a `budget` change (the budget mirror keeps admission current) and emit no domain
// events: the events budgets cause (threshold reached, exceeded) come from spend, through
// `markAlert`, which records each announcement once per (budget, member, period, mark).
import type { DomainEvent } from '../ports/domain-events.ts';
import { fromJsonText } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';
import { orgTable } from './org-table.ts';
import { appendEvents } from './outbox.ts';

export type BudgetScopeType = 'org' | 'project' | 'api_key' | 'end_user' | 'tag' | 'key_metadata';

export interface BudgetScope {
  type: BudgetScopeType;
  /** A project, API key or end-user id. */
  id?: string;
  /** A tag, or a pair of the calling key's metadata, as `name=value`. */
  value?: string;
}

export type BudgetPeriod = 'daily' | 'weekly' | 'monthly' | 'total';
export type BudgetAction = 'block' | 'alert_only';

export interface BudgetRecord {
  id: string;
  orgId: string;
  name: string;
  scope: BudgetScope;
  period: BudgetPeriod;
  limitUsd: number;
  /** Fractions of the limit in (0, 1], ascending, no duplicates. */
  thresholds: number[];
  action: BudgetAction;
  /** Model glob patterns (`*`, `?`) the budget counts; null = every model. */
  models: string[] | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export type NewBudget = Pick<
  BudgetRecord,
  'id' | 'orgId' | 'name' | 'scope' | 'period' | 'limitUsd' | 'thresholds' | 'action' | 'models'
>;

/** Scope and period are fixed at creation: changing them would make the recorded spend mean something else. */
export interface BudgetPatch {
  name?: string;
  limitUsd?: number;
  thresholds?: number[];
  action?: BudgetAction;
  models?: string[] | null;
}

export interface BudgetStore {
  create(b: NewBudget): Promise<BudgetRecord>;
  /** Deleted budgets included. */
  get(orgId: string, id: string): Promise<BudgetRecord | undefined>;
  /** Live budgets by id. */
  /** `projectId`: only budgets scoped to that one project (what a project-bound caller manages). */
  list(orgId: string, page: { afterId?: string; limit: number; projectId?: string }): Promise<BudgetRecord[]>;
  /** Undefined when no live budget has the id. */
  update(orgId: string, id: string, patch: BudgetPatch): Promise<BudgetRecord | undefined>;
  /** The deleted budget; undefined when no live budget has the id. */
  softDelete(orgId: string, id: string): Promise<BudgetRecord | undefined>;
  /** Rows with updated_at >= the instant, deleted ones included (the mirror's poll). */
  changedSince(sinceIso: string): Promise<BudgetRecord[]>;
  /** Every live budget of every org, for warming the mirror at start. */
  listAllLive(): Promise<BudgetRecord[]>;
  /**
   * Records that `mark` (a threshold such as '0.8', or 'exceeded') was reached by `member` ('' when
   * the budget has none) in the period starting at `periodStart` (ISO), and, only if this is the
   * first time, writes `event` to the outbox in the same transaction. True when this call recorded it.
   */
  markAlert(budgetId: string, member: string, periodStart: string, mark: string, event: DomainEvent): Promise<boolean>;
}

/** A scope without a selector counts each member (project, key, end user, tag value) separately. */
export function isPerMemberScope(scope: BudgetScope): boolean {
  return scope.type !== 'org' && scope.id === undefined && scope.value === undefined;
}

export type BudgetsTable = {
  id: string;
  org_id: string;
  name: string;
  scope_type: string;
  scope_id: string | null;
  scope_value: string | null;
  period: string;
  limit_usd: number;
  /** JSON text: number[]. */
  thresholds: string;
  action: string;
  /** JSON text: string[], or null. */
  models: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type BudgetAlertsTable = {
  budget_id: string;
  member: string;
  period_start: string;
  mark: string;
  created_at: string;
};

export type BudgetTables = { budgets: BudgetsTable; budget_alerts: BudgetAlertsTable };

function numbers(text: string): number[] {
  const v = fromJsonText(text);
  return Array.isArray(v) ? v.filter((n): n is number => typeof n === 'number' && Number.isFinite(n)) : [];
}

function strings(text: string | null): string[] | null {
  const v = fromJsonText(text);
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : null;
}

function toRecord(r: BudgetsTable): BudgetRecord {
  const scope: BudgetScope = { type: r.scope_type as BudgetScopeType };
  if (r.scope_id !== null) scope.id = r.scope_id;
  if (r.scope_value !== null) scope.value = r.scope_value;
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    scope,
    period: r.period as BudgetPeriod,
    // pg returns float8 as a number and SQLite REAL too; Number() also covers a numeric-typed column.
    limitUsd: Number(r.limit_usd),
    thresholds: numbers(r.thresholds),
    action: r.action as BudgetAction,
    models: strings(r.models),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export function createBudgetStore(baseDb: Db, changes: ChangePublisher = NO_CHANGES): BudgetStore {
  const db = baseDb.withTables<BudgetTables>();
  const table = orgTable(baseDb, 'budgets', toRecord, (orgId, id) => changes.publish({ topic: 'budget', id, orgId }));

  return {
    create(b) {
      const now = nowIso();
      return table.insert({
        id: b.id,
        org_id: b.orgId,
        name: b.name,
        scope_type: b.scope.type,
        scope_id: b.scope.id ?? null,
        scope_value: b.scope.value ?? null,
        period: b.period,
        limit_usd: b.limitUsd,
        thresholds: JSON.stringify(b.thresholds),
        action: b.action,
        models: b.models === null ? null : JSON.stringify(b.models),
        created_at: now,
        updated_at: now,
        deleted_at: null,
      });
    },
    get: table.get,
    async list(orgId, page) {
      let q = db.selectFrom('budgets').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
      if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
      if (page.projectId !== undefined)
        q = q.where('scope_type', '=', 'project').where('scope_id', '=', page.projectId);
      const rows = await q.orderBy('id').limit(page.limit).execute();
      return rows.map(toRecord);
    },
    update(orgId, id, patch) {
      const set: Partial<BudgetsTable> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.limitUsd !== undefined) set.limit_usd = patch.limitUsd;
      if (patch.thresholds !== undefined) set.thresholds = JSON.stringify(patch.thresholds);
      if (patch.action !== undefined) set.action = patch.action;
      if (patch.models !== undefined) set.models = patch.models === null ? null : JSON.stringify(patch.models);
      return table.update(orgId, id, set);
    },
    softDelete: (orgId, id) => table.softDelete(orgId, id),
    changedSince: table.changedSince,
    listAllLive: table.listAllLive,
    async markAlert(budgetId, member, periodStart, mark, event) {
      return db.transaction().execute(async (tx) => {
        // RETURNING yields no row when the conflict clause skipped the insert, on both dialects.
        const inserted = await tx
          .insertInto('budget_alerts')
          .values({ budget_id: budgetId, member, period_start: periodStart, mark, created_at: nowIso() })
          .onConflict((oc) => oc.doNothing())
          .returning('budget_id')
          .executeTakeFirst();
        if (!inserted) return false;
        await appendEvents(tx, [event]);
        return true;
      });
    },
  };
}
