// The model catalog (issue 36 items 5 and 7): what an organization can call and what it costs, and
// the org's model aliases and price overrides. The writes go through models-settings.ts, which the
// config file's `models:` section uses too.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { VENDORS } from '../providers/types.ts';
import type { ModelSettingKind, ModelSettingRecord } from '../store/model-settings.ts';
import { notFound, requireOrgKey } from './access.ts';
import { ManagedBy, refuseConfigManaged } from './config-managed.ts';
import {
  checkAliasName,
  checkPricedModel,
  deleteModelAlias,
  deleteModelPrice,
  setModelAlias,
  setModelPrice,
  storedPriceKey,
} from './models-settings.ts';
import {
  CAPABILITIES,
  type Capability,
  capabilitiesOf,
  catalogEntries,
  catalogEntry,
  MODEL_KINDS,
  modelView,
  orgModelContext,
} from './models-view.ts';
import { defineOperation, type Operation } from './operation.ts';
import { DeletedResult, Nullable } from './schemas.ts';

const TAG = 'models';
const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

const Price = Nullable(Type.Number());
const ModelObject = Type.Object({
  id: Type.String({ description: 'As callers write it: `vendor/model`' }),
  object: Type.Literal('model'),
  vendor: Type.String(),
  kind: literals(MODEL_KINDS),
  context_window: Nullable(Type.Integer({ description: 'Prompt tokens (embeddings: tokens per input)' })),
  max_output_tokens: Nullable(Type.Integer()),
  dimensions: Nullable(Type.Integer({ description: 'Embeddings: default vector size' })),
  prices: Type.Object(
    {
      input: Price,
      output: Price,
      cache_read: Price,
      cache_write: Price,
      overridden: Type.Boolean({ description: "The organization's own rates replace the list prices" }),
    },
    { description: 'USD per 1M tokens, overrides applied; null where the model is not billed by tokens' },
  ),
  media_prices: Nullable(
    Type.Record(Type.String(), Type.Number(), {
      description: 'Images, speech, transcription: USD per image (by size), megapixel, 1M characters or minute',
    }),
  ),
  capabilities: Type.Object(Object.fromEntries(CAPABILITIES.map((c) => [c, Type.Boolean()]))),
  credentials: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), {
    description: 'Active provider credentials that serve it (empty: not reachable)',
  }),
  configs: Type.Array(Type.String(), { description: "The caller's routing configs that name it (`@slug`)" }),
  aliases: Type.Array(Type.String(), { description: 'Model aliases that stand for it' }),
});

const listModels = defineOperation({
  name: 'list_models',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/models',
  tag: TAG,
  summary: 'List the models the organization can reach, with prices (overrides applied) and capabilities',
  input: {
    query: Type.Object({
      vendor: Type.Optional(literals(VENDORS)),
      capability: Type.Optional(literals(CAPABILITIES)),
      kind: Type.Optional(literals(MODEL_KINDS)),
      include_unreachable: Type.Optional(
        Type.Boolean({ default: false, description: 'Also list catalog models no credential of the org serves' }),
      ),
    }),
  },
  output: Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelObject) }),
  async handler({ svc, principal, query }) {
    const ctx = await orgModelContext(svc, principal);
    const capability: Capability | undefined = query.capability;
    const data = catalogEntries()
      .filter((e) => query.vendor === undefined || e.vendor === query.vendor)
      .filter((e) => query.kind === undefined || e.kind === query.kind)
      .filter((e) => capability === undefined || capabilitiesOf(e)[capability])
      .filter((e) => query.include_unreachable === true || (ctx.credentials.get(e.vendor)?.length ?? 0) > 0)
      .map((e) => modelView(e, ctx));
    return { object: 'list' as const, data };
  },
});

const ModelIdParams = Type.Object({
  model_id: Type.String({ minLength: 1, maxLength: 300, description: '`vendor/model`, URL-encoded' }),
});

const getModel = defineOperation({
  name: 'get_model',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/models/{model_id}',
  tag: TAG,
  summary: 'Get one model of the catalog (any spelling a caller may send)',
  input: { params: ModelIdParams },
  output: ModelObject,
  async handler({ svc, principal, params }) {
    const entry = catalogEntry(params.model_id);
    if (!entry) throw notFound('model', params.model_id);
    return modelView(entry, await orgModelContext(svc, principal));
  },
});

const AliasObject = Type.Object({
  id: Type.String({ description: 'The alias name' }),
  object: Type.Literal('model_alias'),
  managed_by: ManagedBy,
  name: Type.String(),
  model: Type.String({ description: '`@slug` or `vendor/model`' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

const PriceObject = Type.Object({
  id: Type.String({ description: 'The priced model, `vendor/<catalog id>`' }),
  object: Type.Literal('model_price'),
  managed_by: ManagedBy,
  model: Type.String(),
  input: Type.Number(),
  output: Type.Number(),
  cache_read: Nullable(Type.Number()),
  cache_write: Nullable(Type.Number()),
  created_at: Type.String(),
  updated_at: Type.String(),
});

function aliasView(r: { name: string; value: unknown; createdAt: string; updatedAt: string }) {
  return {
    id: r.name,
    object: 'model_alias' as const,
    managed_by: null,
    name: r.name,
    model: String(r.value),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

function priceView(r: { name: string; value: unknown; createdAt: string; updatedAt: string }) {
  const v = (typeof r.value === 'object' && r.value !== null ? r.value : {}) as Record<string, unknown>;
  const num = (k: string) => (typeof v[k] === 'number' ? v[k] : null);
  return {
    id: r.name,
    object: 'model_price' as const,
    managed_by: null,
    model: r.name,
    input: num('input') ?? 0,
    output: num('output') ?? 0,
    cache_read: num('cache_read'),
    cache_write: num('cache_write'),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** Aliases and prices live in one store; each list operation shows one kind of its rows. */
function listSettings<T extends TSchema>(
  op: { name: string; path: string; summary: string },
  kind: ModelSettingKind,
  item: T,
  view: (r: ModelSettingRecord) => Static<T>,
): Operation {
  return defineOperation({
    ...op,
    method: 'GET',
    role: 'viewer',
    tag: TAG,
    input: {},
    output: Type.Object({ object: Type.Literal('list'), data: Type.Array(item) }),
    async handler({ svc, principal }) {
      const rows = await svc.stores.modelSettings.list(principal.orgId);
      return { object: 'list' as const, data: rows.filter((r) => r.kind === kind).map(view) };
    },
  });
}

const listModelAliases = listSettings(
  { name: 'list_model_aliases', path: '/manage/v1/model-aliases', summary: "List the organization's model aliases" },
  'alias',
  AliasObject,
  aliasView,
);

const setAlias = defineOperation({
  name: 'set_model_alias',
  method: 'POST',
  role: 'admin',
  path: '/manage/v1/model-aliases',
  tag: TAG,
  summary: 'Create or replace a model alias (a name callers send that stands for `@slug` or `vendor/model`)',
  input: {
    body: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 100, description: 'What callers send as `model`' }),
        model: Type.String({ minLength: 1, maxLength: 300, description: '`@slug` or `vendor/model`' }),
      },
      { additionalProperties: false },
    ),
  },
  output: AliasObject,
  async handler({ svc, principal, body }) {
    const orgId = requireOrgKey(principal);
    await refuseConfigManaged(svc.db, orgId, 'set_model_alias', 'model_alias', body.name, undefined);
    const { record } = await setModelAlias(svc, orgId, body.name, body.model);
    return aliasView(record);
  },
});

const deleteAlias = defineOperation({
  name: 'delete_model_alias',
  method: 'DELETE',
  role: 'admin',
  path: '/manage/v1/model-aliases/{name}',
  tag: TAG,
  summary: 'Delete a model alias (calls naming it fail from the next call on)',
  input: { params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }) },
  output: DeletedResult,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    await refuseConfigManaged(svc.db, orgId, 'delete_model_alias', 'model_alias', params.name, undefined);
    const gone = await deleteModelAlias(svc, orgId, checkAliasName(params.name));
    if (!gone) throw notFound('model alias', params.name);
    return { id: params.name, object: 'model_alias', deleted: true };
  },
});

const listModelPrices = listSettings(
  { name: 'list_model_prices', path: '/manage/v1/model-prices', summary: "List the organization's price overrides" },
  'price',
  PriceObject,
  priceView,
);

const PerMillion = (what: string) =>
  Type.Number({ minimum: 0, maximum: 100_000, description: `${what}, USD per 1M tokens` });

const setPrice = defineOperation({
  name: 'set_model_price',
  method: 'POST',
  role: 'admin',
  path: '/manage/v1/model-prices',
  tag: TAG,
  summary: 'Set the organization’s own rates for a model; costs, budgets and analytics use them from the next call',
  input: {
    body: Type.Object(
      {
        model: Type.String({ minLength: 1, maxLength: 300, description: '`vendor/model`' }),
        input: PerMillion('Input'),
        output: PerMillion('Output'),
        cache_read: Type.Optional(PerMillion('Cached input (default: the list ratio to input)')),
        cache_write: Type.Optional(PerMillion('Cache writes (default: the list ratio to input)')),
      },
      { additionalProperties: false },
    ),
  },
  output: PriceObject,
  async handler({ svc, principal, body }) {
    const { model, ...price } = body;
    const orgId = requireOrgKey(principal);
    await refuseConfigManaged(svc.db, orgId, 'set_model_price', 'model_price', checkPricedModel(model), undefined);
    const { record } = await setModelPrice(svc, orgId, model, price);
    return priceView(record);
  },
});

const deletePrice = defineOperation({
  name: 'delete_model_price',
  method: 'DELETE',
  role: 'admin',
  path: '/manage/v1/model-prices/{model}',
  tag: TAG,
  summary: 'Delete a price override (list prices apply from the next call)',
  input: { params: Type.Object({ model: Type.String({ minLength: 1, maxLength: 300 }) }) },
  output: DeletedResult,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    const key = storedPriceKey(params.model);
    await refuseConfigManaged(svc.db, orgId, 'delete_model_price', 'model_price', key, undefined);
    const gone = await deleteModelPrice(svc, orgId, params.model);
    if (!gone) throw notFound('model price', params.model);
    return { id: gone.name, object: 'model_price', deleted: true };
  },
});

export const modelOperations: Operation[] = [
  listModels,
  getModel,
  listModelAliases,
  setAlias,
  deleteAlias,
  listModelPrices,
  setPrice,
  deletePrice,
];
