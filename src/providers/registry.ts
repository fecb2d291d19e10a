// Vendor ids and aliases, model-name resolution, and adapter and capability lookup. A new vendor
// touches its own folder plus one line here (DESIGN.md section 4). Code outside providers/ reaches a
// vendor only through what this file hands out (test/architecture.test.ts).
import type { UpstreamErrorInfo } from '../ir/types.ts';
import { anthropicBatchesApi } from './anthropic/batches-api.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import {
  bedrockAnthropicAdapter,
  bedrockConverseAdapter,
  bedrockEmbeddingAdapter,
  bedrockStreamException,
} from './bedrock/index.ts';
import type { BatchesApi, FilesApi, FilesVendor, InlineBatchesApi, MediaApi, ResponsesApi } from './capabilities.ts';
import { geminiAdapter } from './gemini/index.ts';
import { openaiBatchesApi } from './openai-compatible/batches-api.ts';
import type { OpenAIVendor } from './openai-compatible/embeddings.ts';
import { FILES_VENDORS, openaiFilesApi } from './openai-compatible/files-api.ts';
import { openaiCompatibleAdapter } from './openai-compatible/index.ts';
import { openaiMediaApi, openaiResponsesApi } from './openai-compatible/raw-api.ts';
import { type ChatAdapter, type EmbeddingAdapter, type UpstreamEvent, VENDORS, type VendorId } from './types.ts';

export { FILES_VENDORS };

/** `vendor_1`..`vendor_7` in SPEC order (DESIGN.md section 7); accepted everywhere a vendor is named. */
const VENDOR_ALIASES: readonly string[] = VENDORS.map((_, i) => `vendor_${i + 1}`);

/** Every vendor name a caller may write, in model names and in the management API alike. */
export const ACCEPTED_VENDOR_NAMES: readonly string[] = [...VENDORS, ...VENDOR_ALIASES];

const BY_NAME: ReadonlyMap<string, VendorId> = new Map([
  ...VENDORS.map((v): [string, VendorId] => [v, v]),
  ...VENDORS.map((v, i): [string, VendorId] => [VENDOR_ALIASES[i], v]),
]);

/** The vendor id for an id or alias; undefined for anything else. */
export function canonicalVendor(name: string): VendorId | undefined {
  return BY_NAME.get(name);
}

/** Bare model-name prefixes that identify a vendor without a `vendor/` qualifier (DESIGN.md section 7). */
const BARE_PREFIXES: ReadonlyArray<[string, VendorId]> = [
  ['gpt-', 'openai'],
  ['chatgpt-', 'openai'],
  ['o1', 'openai'],
  ['o3', 'openai'],
  ['o4', 'openai'],
  ['text-embedding-', 'openai'],
  ['dall-e', 'openai'],
  ['tts-', 'openai'],
  ['whisper', 'openai'],
  ['claude-', 'anthropic'],
  ['gemini-', 'google'],
];

/**
 * Model-name prefixes as LiteLLM users write them, so a migration changes the base URL and nothing
 * else. They name the vendor only; unlike vendor_N they are not echoed back (the vendor id is).
 * `vertex_ai/` also fronts Anthropic models on Vertex, which no vendor here serves: only its Gemini
 * models are taken.
 */
const MIGRATION_PREFIXES: ReadonlyMap<string, { vendor: VendorId; models?: RegExp }> = new Map([
  ['gemini', { vendor: 'google' }],
  ['vertex_ai', { vendor: 'google', models: /^gemini-/ }],
  ['azure', { vendor: 'azure-openai' }],
  ['together_ai', { vendor: 'together' }],
  ['fireworks_ai', { vendor: 'fireworks' }],
]);

function orList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}` : items.join('');
}

export const ACCEPTED_MODEL_FORMS = `accepted forms: "<vendor>/<model>" with vendor one of ${VENDORS.join(', ')} (or vendor_1..vendor_${VENDORS.length}, or LiteLLM's ${[...MIGRATION_PREFIXES.keys()].map((p) => `${p}/`).join(', ')}), a bare model name starting with ${orList(BARE_PREFIXES.map(([prefix]) => prefix))}, or "@<routing-config-slug>"`;

/** What a model_not_found answer says after the name: the prefix it did not know, then every accepted form. */
export function acceptedModelForms(value: string): string {
  const slash = value.indexOf('/');
  if (slash <= 0) return ACCEPTED_MODEL_FORMS;
  const head = value.slice(0, slash);
  const known = canonicalVendor(head) !== undefined || MIGRATION_PREFIXES.has(head);
  return known ? ACCEPTED_MODEL_FORMS : `"${head}/" names no vendor; ${ACCEPTED_MODEL_FORMS}`;
}

export interface ResolvedModel {
  vendor: VendorId;
  /** The vendor name as the caller wrote it (aliases are echoed back as sent). */
  vendorAsSent: string;
  /** Upstream model id. */
  model: string;
}

export type ModelRef = { kind: 'direct'; resolved: ResolvedModel } | { kind: 'config'; slug: string };

/** Parses a caller's `model` value. Returns undefined when the name matches no accepted form. */
export function parseModelRef(value: string): ModelRef | undefined {
  if (value.startsWith('@')) {
    const slug = value.slice(1);
    return slug ? { kind: 'config', slug } : undefined;
  }
  const resolved = resolveDirectModel(value);
  return resolved ? { kind: 'direct', resolved } : undefined;
}

export function resolveDirectModel(value: string): ResolvedModel | undefined {
  const slash = value.indexOf('/');
  if (slash > 0) {
    const head = value.slice(0, slash);
    const vendor = canonicalVendor(head);
    const model = value.slice(slash + 1);
    if (vendor) return model ? { vendor, vendorAsSent: head, model } : undefined;
    const migration = MIGRATION_PREFIXES.get(head);
    if (migration && model && (migration.models?.test(model) ?? true)) {
      return { vendor: migration.vendor, vendorAsSent: migration.vendor, model };
    }
  }
  for (const [prefix, vendor] of BARE_PREFIXES) {
    if (value.startsWith(prefix)) return { vendor, vendorAsSent: vendor, model: value };
  }
  return undefined;
}

/** Bedrock hosts Anthropic models behind InvokeModel with Anthropic bodies (native beta wire). */
export function isBedrockAnthropicModel(model: string): boolean {
  return /(^|\.)anthropic\./.test(model);
}

export function chatAdapterFor(vendor: VendorId, model: string): ChatAdapter {
  switch (vendor) {
    case 'anthropic':
      return anthropicAdapter;
    case 'google':
      return geminiAdapter;
    case 'bedrock':
      return isBedrockAnthropicModel(model) ? bedrockAnthropicAdapter : bedrockConverseAdapter;
    default:
      return openaiCompatibleAdapter(vendor);
  }
}

/** Undefined for vendors without an embeddings API (anthropic). */
export function embeddingAdapterFor(vendor: VendorId): EmbeddingAdapter | undefined {
  switch (vendor) {
    case 'anthropic':
      return undefined;
    case 'google':
      return geminiAdapter;
    case 'bedrock':
      return bedrockEmbeddingAdapter;
    default:
      return openaiCompatibleAdapter(vendor);
  }
}

/**
 * The error an exception record of an AWS event stream stands for (`:message-type: exception`): the
 * status comes from the exception's name, as the answer itself was a 200. Only Bedrock frames so.
 */
export function eventStreamException(ev: UpstreamEvent): UpstreamErrorInfo {
  return bedrockStreamException(ev.event, ev.data);
}

const filesApis: Readonly<Record<FilesVendor, FilesApi>> = {
  openai: openaiFilesApi('openai'),
  'azure-openai': openaiFilesApi('azure-openai'),
};

/** The files API of a vendor that has one (FILES_VENDORS). */
export function filesApi(vendor: FilesVendor): FilesApi {
  return filesApis[vendor];
}

const alphaBatches: Readonly<Record<'openai' | 'azure-openai', BatchesApi>> = {
  openai: openaiBatchesApi('openai'),
  'azure-openai': openaiBatchesApi('azure-openai'),
};

/** The vendor's batch API: Anthropic's takes requests inline, the OpenAI wire's an uploaded input file. */
export function batchesApi(vendor: 'anthropic'): InlineBatchesApi;
export function batchesApi(vendor: 'openai' | 'azure-openai'): BatchesApi;
export function batchesApi(vendor: 'anthropic' | 'openai' | 'azure-openai'): BatchesApi {
  return vendor === 'anthropic' ? anthropicBatchesApi : alphaBatches[vendor];
}

const OPENAI_WIRE: ReadonlySet<VendorId> = new Set<OpenAIVendor>(['openai', 'azure-openai', 'together', 'fireworks']);

function openaiWire(vendor: VendorId, what: string): OpenAIVendor {
  // Callers route only to vendors that speak the endpoint's wire; anything else is a gateway fault.
  if (!OPENAI_WIRE.has(vendor)) throw new Error(`${vendor} has no ${what}`);
  return vendor as OpenAIVendor;
}

const responsesApis = new Map<VendorId, ResponsesApi>();
const mediaApis = new Map<VendorId, MediaApi>();

/** One API object per vendor, built on first use. */
function perVendor<T>(built: Map<VendorId, T>, vendor: VendorId, build: () => T): T {
  let api = built.get(vendor);
  if (api === undefined) {
    api = build();
    built.set(vendor, api);
  }
  return api;
}

/** The Responses API passed through to an OpenAI-wire vendor; throws for any other vendor. */
export function responsesApi(vendor: VendorId): ResponsesApi {
  return perVendor(responsesApis, vendor, () => openaiResponsesApi(openaiWire(vendor, 'Responses API')));
}

/** Images and audio passed through to an OpenAI-wire vendor; throws for any other vendor. */
export function mediaApi(vendor: VendorId): MediaApi {
  return perVendor(mediaApis, vendor, () => openaiMediaApi(openaiWire(vendor, 'media API')));
}
