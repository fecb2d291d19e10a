// Live budgets in memory, per org, so admission on every proxy call finds the budgets that may apply
// without a database round trip. `forOrg` answers with an array built when the org's budgets
// change, never per call. Kept current by `budget` change events and the periodic poll; a deleted
// budget is dropped (deletion is final, so no later read brings it back).
import type { Logger } from 'pino';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { BudgetRecord, BudgetStore } from '../store/budgets.ts';
import { compareStrings } from '../util/compare.ts';
import { isDeleted, LiveMirror } from './feed.ts';

/** What the mirror reads from the budget store. */
export type BudgetSource = Pick<BudgetStore, 'get' | 'changedSince' | 'listAllLive'>;

const NONE: readonly BudgetRecord[] = Object.freeze([]);

/** Frozen throughout: mirror entries are shared by every call that reads them. */
function frozen(b: BudgetRecord): BudgetRecord {
  Object.freeze(b.scope);
  Object.freeze(b.thresholds);
  if (b.models !== null) Object.freeze(b.models);
  return Object.freeze(b);
}

export class BudgetMirror extends LiveMirror<BudgetRecord> {
  readonly #byId = new Map<string, BudgetRecord>();
  /** Live budgets of each org by id; the source `#lists` is rebuilt from. */
  readonly #byOrg = new Map<string, Map<string, BudgetRecord>>();
  readonly #lists = new Map<string, readonly BudgetRecord[]>();

  constructor(store: BudgetSource, bus: ChangeBus, logger: Logger, intervalMs: number) {
    const warm = () => store.listAllLive();
    super({ name: 'budgets', topic: 'budget', store, final: isDeleted, warm }, bus, logger, intervalMs);
  }

  protected override apply(row: BudgetRecord): void {
    if (row.deletedAt !== null) {
      this.remove(row.id);
      return;
    }
    const b = frozen(row);
    this.#byId.set(b.id, b);
    let org = this.#byOrg.get(b.orgId);
    if (!org) {
      org = new Map();
      this.#byOrg.set(b.orgId, org);
    }
    org.set(b.id, b);
    this.#rebuild(b.orgId);
  }

  protected override remove(id: string): void {
    const b = this.#byId.get(id);
    if (!b) return;
    this.#byId.delete(id);
    this.#byOrg.get(b.orgId)?.delete(id);
    this.#rebuild(b.orgId);
  }

  #rebuild(orgId: string): void {
    const org = this.#byOrg.get(orgId);
    if (!org || org.size === 0) {
      this.#byOrg.delete(orgId);
      this.#lists.delete(orgId);
      return;
    }
    // Ordered by id (creation order), so admission visits an org's budgets in a stable order.
    const list = [...org.values()].sort((a, b) => compareStrings(a.id, b.id));
    this.#lists.set(orgId, Object.freeze(list));
  }

  /** The org's live budgets: the same array until one of them changes; a shared empty array when none. */
  forOrg(orgId: string): readonly BudgetRecord[] {
    return this.#lists.get(orgId) ?? NONE;
  }

  /** A live budget by id. */
  get(id: string): BudgetRecord | undefined {
    return this.#byId.get(id);
  }

  /** Every live budget of every org (for periodic reports such as the spend gauge, not per call). */
  all(): IterableIterator<BudgetRecord> {
    return this.#byId.values();
  }
}
