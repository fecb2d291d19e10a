// Model aliases and price overrides of an organization: the one service the management operations
// (models.ts) and the declarative config file (`models: {aliases, prices}`) both write
// through. Values are judged here, once; the store keeps what passed.
import { GatewayError } from '../errors/gateway-error.ts';
import type { JsonObject, JsonValue } from '../ir/types.ts';
import { billedPerUnit } from '../providers/catalog/media.ts';
import { asPriceOverride, type PriceOverride, priceKey } from '../providers/catalog/price-override.ts';
import { parseModelRef, resolveDirectModel } from '../providers/registry.ts';
import type { Stores } from '../store/index.ts';
import type { ModelSettingKind, ModelSettingRecord } from '../store/model-settings.ts';

/** What an organization has set, as the config file writes it. */
export interface ModelSettings {
  /** Alias name -> `@slug` or `vendor/model`. */
  aliases: Record<string, string>;
  /** `vendor/model` (catalog id) -> USD per 1M tokens. */
  prices: Record<string, PriceOverride>;
}

export interface ModelSettingChange {
  kind: ModelSettingKind;
  name: string;
  action: 'create' | 'update' | 'delete';
  before: JsonValue | null;
  after: JsonValue | null;
}

/** Only the settings store is needed, so the config file's planner can pass just that. */
type Stored = { stores: Pick<Stores, 'modelSettings'> };

const ALIAS_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
const SLUG = /^@[a-z0-9][a-z0-9-]{0,99}$/;
/** No list price is near this; a bigger number is a unit mistake (USD per token, per 1K). */
const MAX_PRICE = 100_000;

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_parameter', { message, param });
}

/** The alias name as stored; refused when it could be read as a model or a slug. */
export function checkAliasName(name: string, param = 'name'): string {
  if (!ALIAS_NAME.test(name))
    throw invalid(param, `alias name '${name}' must be 1-100 letters, digits, '.', '_', ':' or '-' (no '/' or '@')`);
  if (parseModelRef(name))
    throw invalid(param, `alias name '${name}' is already a model name; pick a name no model starts with`);
  return name;
}

/** The alias target: a routing config (`@slug`) or a model the gateway can route (`vendor/model`). */
export function checkAliasTarget(model: string, param = 'model'): string {
  if (model.startsWith('@')) {
    if (!SLUG.test(model)) throw invalid(param, `'${model}' is not a routing config slug ('@' and a-z, 0-9, '-')`);
    return model;
  }
  if (!resolveDirectModel(model))
    throw invalid(param, `'${model}' is not a model the gateway can route; use "<vendor>/<model>" or "@<slug>"`);
  return model;
}

/** The key a price is stored under: `vendor/<catalog id>` for any spelling of a catalog model. */
export function checkPricedModel(model: string, param = 'model'): string {
  const r = resolveDirectModel(model);
  if (!r) throw invalid(param, `'${model}' is not a model the gateway can route; use "<vendor>/<model>"`);
  if (billedPerUnit(r.vendor, r.model))
    throw invalid(param, `'${model}' is billed per image, character or minute; a price override is per 1M tokens`);
  return priceKey(r.vendor, r.model);
}

export function checkPrice(v: unknown, param = 'price'): PriceOverride {
  const o = asPriceOverride(v);
  if (!o) throw invalid(param, 'a price needs input and output, in USD per 1M tokens');
  for (const [k, n] of Object.entries(o)) {
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > MAX_PRICE)
      throw invalid(`${param}.${k}`, `${k} must be a number from 0 to ${MAX_PRICE} (USD per 1M tokens)`);
  }
  return o;
}

export async function readModelSettings(svc: Stored, orgId: string): Promise<ModelSettings> {
  const out: ModelSettings = { aliases: {}, prices: {} };
  for (const r of await svc.stores.modelSettings.list(orgId)) {
    if (r.kind === 'alias' && typeof r.value === 'string') out.aliases[r.name] = r.value;
    const price = r.kind === 'price' ? asPriceOverride(r.value) : undefined;
    if (price) out.prices[r.name] = price;
  }
  return out;
}

export function setModelAlias(svc: Stored, orgId: string, name: string, model: string) {
  return svc.stores.modelSettings.set(orgId, 'alias', checkAliasName(name), checkAliasTarget(model));
}

export function deleteModelAlias(svc: Stored, orgId: string, name: string): Promise<ModelSettingRecord | undefined> {
  return svc.stores.modelSettings.remove(orgId, 'alias', name);
}

export function setModelPrice(svc: Stored, orgId: string, model: string, price: PriceOverride) {
  return svc.stores.modelSettings.set(orgId, 'price', checkPricedModel(model), priceJson(checkPrice(price)));
}

/** The key a stored price is found by, for any spelling of its model (no checks: deletes and look-ups). */
export function storedPriceKey(model: string): string {
  const r = resolveDirectModel(model);
  return r ? priceKey(r.vendor, r.model) : model;
}

export function deleteModelPrice(svc: Stored, orgId: string, model: string): Promise<ModelSettingRecord | undefined> {
  return svc.stores.modelSettings.remove(orgId, 'price', storedPriceKey(model));
}

function priceJson(o: PriceOverride): JsonObject {
  const out: JsonObject = { input: o.input, output: o.output };
  if (o.cache_read !== undefined) out.cache_read = o.cache_read;
  if (o.cache_write !== undefined) out.cache_write = o.cache_write;
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What bringing the org to `desired` changes, validated whole before anything is written: a bad
 * entry refuses the lot. Settings `desired` leaves out stay unless `prune`. With `apply` false
 * nothing is written (a plan); applying the same settings twice changes nothing the second time.
 */
export async function applyModelSettings(
  svc: Stored,
  orgId: string,
  desired: Partial<ModelSettings>,
  opts: { prune?: boolean; apply?: boolean } = {},
): Promise<ModelSettingChange[]> {
  const want = { alias: new Map<string, JsonValue>(), price: new Map<string, JsonValue>() };
  for (const [name, model] of Object.entries(desired.aliases ?? {}))
    want.alias.set(checkAliasName(name, `aliases.${name}`), checkAliasTarget(model, `aliases.${name}`));
  for (const [model, price] of Object.entries(desired.prices ?? {}))
    want.price.set(checkPricedModel(model, `prices.${model}`), priceJson(checkPrice(price, `prices.${model}`)));
  const have = await readModelSettings(svc, orgId);
  const current = {
    alias: new Map<string, JsonValue>(Object.entries(have.aliases)),
    price: new Map<string, JsonValue>(Object.entries(have.prices).map(([k, v]) => [k, priceJson(v)])),
  };
  const changes: ModelSettingChange[] = [];
  for (const kind of ['alias', 'price'] as const) {
    for (const [name, after] of want[kind]) {
      const before = current[kind].get(name);
      if (before === undefined) changes.push({ kind, name, action: 'create', before: null, after });
      else if (!same(before, after)) changes.push({ kind, name, action: 'update', before, after });
    }
    if (opts.prune)
      for (const [name, before] of current[kind])
        if (!want[kind].has(name)) changes.push({ kind, name, action: 'delete', before, after: null });
  }
  if (opts.apply !== false) {
    for (const c of changes) {
      if (c.after === null) await svc.stores.modelSettings.remove(orgId, c.kind, c.name);
      else await svc.stores.modelSettings.set(orgId, c.kind, c.name, c.after);
    }
  }
  return changes;
}
