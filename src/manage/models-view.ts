// The model catalog as an organization sees it: every priced model of the catalog (token models and
// the media ones), with the org's price overrides applied, the credentials that serve it, the
// routing configs that name it and the aliases that stand for it. Read by the management operations
// (models.ts) and by the proxy's model lists (http/model-lists.ts).
import type { Principal } from '../live/principals.ts';
import { keyAllows } from '../pipeline/route.ts';
import type { LiveState } from '../pipeline/types.ts';
import { listModels, lookupModel, type ModelInfo, vendorPriceSource } from '../providers/catalog/index.ts';
import { listMediaModels, type MediaModel, mediaPrice } from '../providers/catalog/media.ts';
import { asPriceOverride, overrideRates, type PriceOverride, priceKey } from '../providers/catalog/price-override.ts';
import { canonicalVendor, resolveDirectModel } from '../providers/registry.ts';
import type { VendorId } from '../providers/types.ts';
import { isRecord } from '../util/json.ts';
import type { Services } from './services.ts';

export const MODEL_KINDS = ['chat', 'embeddings', 'images', 'audio'] as const;
export type CatalogKind = (typeof MODEL_KINDS)[number];
export const CAPABILITIES = ['tools', 'vision', 'json_schema', 'thinking', 'prompt_cache', 'dimensions'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** One catalog model, before the org's view of it is added. */
export interface CatalogEntry {
  vendor: VendorId;
  /** The catalog id (`gpt-4o-mini`); callers write `vendor/id`. */
  id: string;
  kind: CatalogKind;
  token?: ModelInfo;
  media?: MediaModel;
}

function mediaKind(m: MediaModel): CatalogKind {
  return m.price.kind === 'image' ? 'images' : 'audio';
}

/** Every model of the catalog, token models first, each once. */
export function catalogEntries(): CatalogEntry[] {
  const out: CatalogEntry[] = listModels().map((info) => ({
    vendor: info.vendor,
    id: info.id,
    kind: info.kind === 'embedding' ? 'embeddings' : 'chat',
    token: info,
  }));
  const seen = new Set(out.map((e) => `${e.vendor}/${e.id}`));
  for (const m of listMediaModels()) {
    const key = `${m.vendor}/${m.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ vendor: m.vendor, id: m.id, kind: mediaKind(m), media: m });
  }
  return out;
}

/** The catalog entry a caller's model name (`openai/gpt-4o-mini`, `claude-sonnet-4-5`) stands for. */
export function catalogEntry(model: string): CatalogEntry | undefined {
  const resolved = resolveDirectModel(model);
  if (!resolved) return undefined;
  const { vendor } = resolved;
  const info = lookupModel(vendor, resolved.model);
  if (info) return { vendor, id: info.id, kind: info.kind === 'embedding' ? 'embeddings' : 'chat', token: info };
  const price = mediaPrice(vendor, resolved.model);
  if (!price) return undefined;
  const listed = listMediaModels().find((m) => m.vendor === vendor && m.price === price);
  const media = listed ?? { vendor, id: resolved.model, price };
  return { vendor, id: media.id, kind: mediaKind(media), media };
}

export function capabilitiesOf(e: CatalogEntry): Record<Capability, boolean> {
  const t = e.token;
  return {
    tools: t?.tools ?? false,
    vision: t?.images ?? false,
    json_schema: t?.jsonSchema ?? false,
    thinking: t?.thinking ?? false,
    prompt_cache: t !== undefined && t.kind === 'chat' && t.price.cacheRead > 0,
    dimensions: t?.supportsDimensions ?? false,
  };
}

/** What the org has set and can reach, read once per management call. */
export interface OrgModelContext {
  /** Active credentials by vendor: id and name. */
  credentials: Map<VendorId, Array<{ id: string; name: string }>>;
  /** `@slug`s the caller may use, with every model string their config names. */
  configs: Array<{ slug: string; models: Set<string> }>;
  aliases: Map<string, string>;
  prices: Map<string, PriceOverride>;
}

function modelStrings(v: unknown, into: Set<string>): void {
  if (typeof v === 'string') {
    const r = resolveDirectModel(v);
    if (r) into.add(priceKey(r.vendor, r.model));
  } else if (Array.isArray(v)) for (const x of v) modelStrings(x, into);
  else if (isRecord(v)) for (const x of Object.values(v)) modelStrings(x, into);
}

export async function orgModelContext(svc: Services, principal: Principal): Promise<OrgModelContext> {
  const { orgId, projectId } = principal;
  const [providers, configs, settings] = await Promise.all([
    svc.stores.credentials.list(orgId),
    svc.stores.routingConfigs.listAllLive(orgId),
    svc.stores.modelSettings.list(orgId),
  ]);
  const names = new Map(providers.map((p) => [p.id, p.name]));
  const credentials = new Map<VendorId, Array<{ id: string; name: string }>>();
  for (const p of providers) {
    const vendor = canonicalVendor(p.vendorId);
    if (vendor === undefined || credentials.has(vendor)) continue;
    // The mirror holds exactly the credentials that serve calls now (active, decrypted).
    const live = svc.credentials.forVendor(orgId, vendor);
    credentials.set(
      vendor,
      live.map((c) => ({ id: c.id, name: names.get(c.id) ?? c.id })),
    );
  }
  const reachable = configs.filter((c) => projectId === null || c.projectId === null || c.projectId === projectId);
  const aliases = new Map<string, string>();
  const prices = new Map<string, PriceOverride>();
  for (const s of settings) {
    if (s.kind === 'alias' && typeof s.value === 'string') aliases.set(s.name, s.value);
    const price = s.kind === 'price' ? asPriceOverride(s.value) : undefined;
    if (price) prices.set(s.name, price);
  }
  return {
    credentials,
    configs: reachable.map((c) => {
      const models = new Set<string>();
      modelStrings(c.config, models);
      return { slug: c.slug, models };
    }),
    aliases,
    prices,
  };
}

const per1m = (n: number | undefined) => (n === undefined ? null : n);

/** The rates calls are billed at: the override as computeCost applies it, else the list prices. */
function pricesOf(e: CatalogEntry, override: PriceOverride | undefined) {
  if (override) {
    const r = overrideRates(e.vendor, e.id, override);
    return { input: r.input, output: r.output, cache_read: r.cacheRead, cache_write: r.cacheWrite, overridden: true };
  }
  const listed = e.token?.price;
  const media = e.media?.price;
  const tokenMedia = media?.kind === 'image' ? media : undefined;
  return {
    input: per1m(listed?.input ?? tokenMedia?.inputPer1m),
    output: per1m(listed?.output ?? tokenMedia?.outputPer1m),
    cache_read: per1m(listed?.cacheRead),
    cache_write: per1m(listed?.cacheWrite),
    overridden: false,
  };
}

function mediaPricesOf(e: CatalogEntry): Record<string, number> | null {
  const p = e.media?.price;
  if (!p) return null;
  if (p.kind === 'speech') return { per_1m_chars: p.per1mChars };
  if (p.kind === 'transcription') return { per_minute: p.perMinute };
  const out: Record<string, number> = {};
  for (const [size, usd] of Object.entries(p.perImage ?? {})) out[`per_image:${size}`] = usd;
  if (p.perMegapixel !== undefined) out.per_megapixel = p.perMegapixel;
  return out;
}

/** The management view of one model (the `model` object). */
export function modelView(e: CatalogEntry, ctx: OrgModelContext) {
  const key = `${e.vendor}/${e.id}`;
  const info = e.token;
  return {
    id: key,
    object: 'model' as const,
    vendor: e.vendor,
    kind: e.kind,
    context_window: info ? info.contextWindow : null,
    max_output_tokens: info && info.kind === 'chat' ? info.maxOutput : null,
    dimensions: info?.dimensions ?? null,
    prices: pricesOf(e, ctx.prices.get(key)),
    media_prices: mediaPricesOf(e),
    capabilities: capabilitiesOf(e),
    credentials: ctx.credentials.get(e.vendor) ?? [],
    configs: ctx.configs.filter((c) => c.models.has(key)).map((c) => `@${c.slug}`),
    aliases: [...ctx.aliases].filter(([, target]) => aliasTargetKey(target) === key).map(([name]) => name),
  };
}

function aliasTargetKey(target: string): string | undefined {
  const r = resolveDirectModel(target);
  return r ? priceKey(r.vendor, r.model) : undefined;
}

/**
 * What a key may call, for the proxy's model lists: catalog models whose vendor has an active
 * credential in the key's org and that the key's allow-list admits. Empty unless the key's project
 * turned `list_models` on (the API contract keeps the lists empty by default). From memory only.
 */
export function callableModels(live: LiveState, principal: Principal): CatalogEntry[] {
  const { projectId, orgId, modelAllow } = principal;
  if (projectId === null || !live.listsModels(projectId)) return [];
  return catalogEntries().filter((e) => {
    if (live.credentialsFor(orgId, e.vendor).length === 0) return false;
    if (modelAllow == null) return true;
    const id = `${e.vendor}/${e.id}`;
    return keyAllows(modelAllow, id, {
      kind: 'direct',
      resolved: { vendor: e.vendor, vendorAsSent: e.vendor, model: e.id },
    });
  });
}

/** When the catalog's prices were taken for the vendor (`as of 2026-11`), as a list's `created`. */
export function catalogDate(vendor: VendorId): Date {
  const m = /as of (\d{4})-(\d{2})/.exec(vendorPriceSource(vendor));
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : new Date(0);
}
