// Budgets: spend limits over a scope (the org, a project, an API key, an end user or a tag) and a UTC
// calendar period (DESIGN.md section 7). The definitions live in the budget store; spend, status and
// the per-member breakdown come from the limits feature (`svc.limits`), which is asked to rebuild a
// budget's spend from the request log whenever its definition changes.
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import {
  type BudgetAction,
  type BudgetPeriod,
  type BudgetRecord,
  type BudgetScope,
  type BudgetScopeType,
  isPerMemberScope,
} from '../store/budgets.ts';
import { newId } from '../util/ids.ts';
import { liveOr404, notFound, requireProjectReach } from './access.ts';
import { ManagedBy } from './config-managed.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

const TAG = 'budgets';

const SCOPE_TYPES: readonly BudgetScopeType[] = ['org', 'project', 'api_key', 'end_user', 'tag', 'key_metadata'];
const PERIODS: readonly BudgetPeriod[] = ['daily', 'weekly', 'monthly', 'total'];
const ACTIONS: readonly BudgetAction[] = ['block', 'alert_only'];
const DEFAULT_THRESHOLDS = [0.5, 0.8, 1.0];
const MEMBERS_SHOWN = 20;
const MAX_MODELS = 20;
// A model name as the proxy accepts it (printable ASCII, no spaces), with `*` and `?` as wildcards.
const MODEL_PATTERN = /^[\x21-\x7e]{1,256}$/;
// Tags arrive as `key=value` (X-Svc-User-Tags, svc:tags); a tag budget names one such pair.
const TAG_VALUE = /^[^=]+=.+$/s;

const BudgetIdParams = Type.Object({ budget_id: Type.String({ minLength: 1, maxLength: 100 }) });
const Name = Type.String({ minLength: 1, maxLength: 200 });

const ScopeSchema = Type.Object(
  {
    type: Type.Unsafe<BudgetScopeType>({
      type: 'string',
      enum: [...SCOPE_TYPES],
      description: 'What the budget covers; org = every call of the organization',
    }),
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'project, api_key, end_user: the one project, key or end user covered; omitted = each one separately',
      }),
    ),
    value: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'tag: the `key=value` pair covered; key_metadata: the `name=value` pair of API key metadata whose keys are covered; omitted = each pair separately',
      }),
    ),
  },
  { additionalProperties: false },
);
const Period = Type.Unsafe<BudgetPeriod>({
  type: 'string',
  enum: [...PERIODS],
  description: 'UTC calendar period (weeks start on Monday); total never resets',
});
const Action = Type.Unsafe<BudgetAction>({
  type: 'string',
  enum: [...ACTIONS],
  description: 'block: calls over the limit get 402; alert_only: webhooks only',
});
const LimitUsd = Type.Number({ exclusiveMinimum: 0, description: 'Spend limit per period, in USD' });
const Thresholds = Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 1 }), {
  minItems: 1,
  maxItems: 10,
  description: 'Fractions of the limit that send budget.threshold_reached (sorted, de-duplicated on save)',
});
const Models = Nullable(
  Type.Array(Type.String({ maxLength: 256 }), {
    maxItems: MAX_MODELS,
    description: 'Model glob patterns (`*`, `?`) the budget counts; null = every model',
  }),
);

const Status = Type.Object({
  spent_usd: Type.Number(),
  reserved_usd: Type.Number({ description: 'Held by calls in flight' }),
  remaining_usd: Type.Number(),
  period_start: Timestamp,
  period_end: Nullable(Timestamp),
  exceeded: Type.Boolean(),
  forecast_usd: Type.Number({ description: "Spend projected linearly to the period's end" }),
});

const Budget = Type.Object({
  id: Type.String(),
  object: Type.Literal('budget'),
  managed_by: ManagedBy,
  name: Type.String(),
  scope: ScopeSchema,
  period: Period,
  limit_usd: Type.Number(),
  thresholds: Type.Array(Type.Number()),
  action: Action,
  models: Nullable(Type.Array(Type.String())),
  status: Type.Union([Status, Type.Null()], {
    description: 'Null for a per-member budget unless ?member= names one (see members), and after deletion',
  }),
  members: Type.Optional(
    Type.Array(Type.Object({ member: Type.String(), status: Status }), {
      description: `Per-member budgets: up to ${MEMBERS_SHOWN} members with spend this period, most spent first`,
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Nullable(Timestamp),
});

function bad(param: string, problem: string): never {
  throw new GatewayError('invalid_budget', { message: `${param}: ${problem}`, param });
}

/** The scope as stored, after checking its selector names something of the caller's org. */
async function checkedScope(svc: Services, orgId: string, scope: BudgetScope): Promise<BudgetScope> {
  const { type, id, value } = scope;
  if (type === 'org') {
    if (id !== undefined || value !== undefined)
      bad(
        id !== undefined ? 'scope.id' : 'scope.value',
        "an org budget takes no selector: it covers the caller's organization",
      );
    return { type };
  }
  if (type === 'tag' || type === 'key_metadata') {
    if (id !== undefined) bad('scope.id', `a ${type} budget is selected by value ("name=value"), not by id`);
    if (value === undefined) return { type };
    if (!TAG_VALUE.test(value)) bad('scope.value', `expected "key=value", got ${JSON.stringify(value)}`);
    return { type, value };
  }
  if (value !== undefined)
    bad('scope.value', `only tag and key_metadata budgets take a value; a ${type} budget is selected by id`);
  if (id === undefined) return { type };
  if (type === 'project') {
    const p = await svc.stores.projects.get(orgId, id);
    if (!p || p.deletedAt !== null) bad('scope.id', `no active project with id '${id}' in this organization`);
  } else if (type === 'api_key') {
    if (!(await svc.stores.orgKeys.getKey(orgId, id)))
      bad('scope.id', `no API key with id '${id}' in this organization`);
  }
  return { type, id };
}

/** Sorted ascending without duplicates, so threshold crossings are judged in order. */
function normalThresholds(t: readonly number[]): number[] {
  return [...new Set(t)].sort((a, b) => a - b);
}

function checkedModels(models: readonly string[] | null): string[] | null {
  if (models === null) return null;
  if (models.length === 0) bad('models', 'list at least one model pattern, or send null to count every model');
  models.forEach((m, i) => {
    if (!MODEL_PATTERN.test(m))
      bad(
        `models[${i}]`,
        'a pattern is 1-256 printable ASCII characters without spaces; * matches any run of characters, ? one',
      );
  });
  return [...models];
}

function baseView(b: BudgetRecord) {
  return {
    id: b.id,
    object: 'budget' as const,
    managed_by: null,
    name: b.name,
    scope: b.scope,
    period: b.period,
    limit_usd: b.limitUsd,
    thresholds: b.thresholds,
    action: b.action,
    models: b.models,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
    deleted_at: b.deletedAt,
  };
}

/** With its status: a budget over one entity has one; a per-member budget one per member. */
async function budgetView(svc: Services, b: BudgetRecord, member?: string) {
  if (!isPerMemberScope(b.scope)) return { ...baseView(b), status: await svc.limits.status(b, null) };
  if (member !== undefined) return { ...baseView(b), status: await svc.limits.status(b, member) };
  const members = await svc.limits.members(b, MEMBERS_SHOWN);
  return {
    ...baseView(b),
    status: null,
    members: members.map((m) => ({ member: m.member, status: m.status })),
  };
}

/** The one project a budget belongs to: a budget over one project; null for every other scope. */
function projectOf(scope: BudgetScope): string | null {
  return scope.type === 'project' && scope.id !== undefined ? scope.id : null;
}

/** After a write: the budget's spend counted again, then its view. */
async function rebuiltView(svc: Services, b: BudgetRecord) {
  // Rows of calls just made may still be queued: written first, so the rebuilt spend counts them.
  await svc.logs.flush();
  await svc.limits.rebuild(b);
  return budgetView(svc, b);
}

/** A live budget the caller may manage: a project-bound caller reaches its own project's budget only. */
async function liveBudget(svc: Services, principal: Principal, id: string): Promise<BudgetRecord> {
  const b = liveOr404(await svc.stores.budgets.get(principal.orgId, id), 'budget', id);
  requireProjectReach(principal, projectOf(b.scope), 'budgets');
  return b;
}

const listBudgets = defineOperation({
  name: 'list_budgets',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/budgets',
  tag: TAG,
  summary: 'List budgets with their current status (per-member budgets: status null; get one for its members)',
  input: { query: Type.Object({ ...PageQuery }, { additionalProperties: false }) },
  output: pageOf(Budget),
  async handler({ svc, principal, query }) {
    const page = await pageAfter(
      query,
      (p) =>
        svc.stores.budgets.list(principal.orgId, {
          ...p,
          ...(principal.projectId !== null ? { projectId: principal.projectId } : {}),
        }),
      (b) => b,
    );
    const data = await Promise.all(
      page.data.map(async (b) => ({
        ...baseView(b),
        status: isPerMemberScope(b.scope) ? null : await svc.limits.status(b, null),
      })),
    );
    return { ...page, data };
  },
});

const getBudget = defineOperation({
  name: 'get_budget',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/budgets/{budget_id}',
  tag: TAG,
  summary: 'Get a budget and its spend this period; ?member= picks one member of a per-member budget',
  input: {
    params: BudgetIdParams,
    query: Type.Object(
      {
        member: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: 'Per-member budgets only: the end user, key id, project id or tag value to report on',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  output: Budget,
  async handler({ svc, principal, params, query }) {
    const b = await liveBudget(svc, principal, params.budget_id);
    if (query.member !== undefined && !isPerMemberScope(b.scope))
      bad('member', `budget ${b.id} covers one ${b.scope.type === 'org' ? 'organization' : b.scope.type}, not members`);
    return budgetView(svc, b, query.member);
  },
});

const createBudget = defineOperation({
  name: 'create_budget',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/budgets',
  tag: TAG,
  summary: 'Create a budget; spend already logged in the current period counts at once',
  description:
    'A scope without id (or value, for tag) applies to each member separately: `{type: "end_user"}` gives every end user their own limit. With action block, a call whose estimated cost would pass the limit gets 402 budget_exceeded.',
  status: 201,
  input: {
    body: Type.Object(
      {
        name: Name,
        scope: ScopeSchema,
        period: Period,
        limit_usd: LimitUsd,
        thresholds: Type.Optional(Thresholds),
        action: Type.Optional(Action),
        models: Type.Optional(Models),
      },
      { additionalProperties: false },
    ),
  },
  output: Budget,
  async handler({ svc, principal, body }) {
    // A project-bound caller's budget is over its project; `{type: "project"}` means that one.
    const own = principal.projectId;
    const asked = own !== null && body.scope.type === 'project' && body.scope.id === undefined;
    const scope = await checkedScope(svc, principal.orgId, asked ? { ...body.scope, id: own } : body.scope);
    const orgId = requireProjectReach(principal, projectOf(scope), 'budgets');
    const b = await svc.stores.budgets.create({
      id: newId('budget'),
      orgId,
      name: body.name,
      scope,
      period: body.period,
      limitUsd: body.limit_usd,
      thresholds: normalThresholds(body.thresholds ?? DEFAULT_THRESHOLDS),
      action: body.action ?? 'block',
      models: checkedModels(body.models ?? null),
    });
    return rebuiltView(svc, b);
  },
});

const updateBudget = defineOperation({
  name: 'update_budget',
  method: 'PATCH',
  role: 'developer',
  path: '/manage/v1/budgets/{budget_id}',
  tag: TAG,
  summary: 'Change name, limit_usd, thresholds, action or models (scope and period are fixed: create a new budget)',
  input: {
    params: BudgetIdParams,
    body: Type.Object(
      {
        name: Type.Optional(Name),
        limit_usd: Type.Optional(LimitUsd),
        thresholds: Type.Optional(Thresholds),
        action: Type.Optional(Action),
        models: Type.Optional(Models),
      },
      { additionalProperties: false },
    ),
  },
  output: Budget,
  async handler({ svc, principal, params, body }) {
    const orgId = (await liveBudget(svc, principal, params.budget_id)).orgId;
    const b = await svc.stores.budgets.update(orgId, params.budget_id, {
      name: body.name,
      limitUsd: body.limit_usd,
      thresholds: body.thresholds === undefined ? undefined : normalThresholds(body.thresholds),
      action: body.action,
      models: body.models === undefined ? undefined : checkedModels(body.models),
    });
    if (!b) throw notFound('budget', params.budget_id);
    return rebuiltView(svc, b);
  },
});

const deleteBudget = defineOperation({
  name: 'delete_budget',
  method: 'DELETE',
  role: 'developer',
  path: '/manage/v1/budgets/{budget_id}',
  tag: TAG,
  summary: 'Soft-delete a budget; calls stop counting against it at once',
  input: { params: BudgetIdParams },
  output: Budget,
  async handler({ svc, principal, params }) {
    const b = await svc.stores.budgets.softDelete(
      (await liveBudget(svc, principal, params.budget_id)).orgId,
      params.budget_id,
    );
    if (!b) throw notFound('budget', params.budget_id);
    return { ...baseView(b), status: null };
  },
});

export const budgetOperations: Operation[] = [listBudgets, getBudget, createBudget, updateBudget, deleteBudget];
