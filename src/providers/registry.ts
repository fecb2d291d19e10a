// Vendor ids and aliases, model-name resolution, and adapter lookup. A new vendor touches its own
// folder plus one line here (DESIGN.md section 4).
import { anthropicAdapter, bedrockAnthropicAdapter } from './anthropic/index.ts';
import { bedrockConverseAdapter, bedrockEmbeddingAdapter } from './bedrock/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { openaiCompatibleAdapter } from './openai-compatible/index.ts';
import { type ChatAdapter, type EmbeddingAdapter, VENDORS, type VendorId } from './types.ts';

/** `vendor_1`..`vendor_7` in SPEC order. */
const ALIASES: ReadonlyMap<string, VendorId> = new Map(VENDORS.map((v, i) => [`vendor_${i + 1}`, v]));

export function canonicalVendor(name: string): VendorId | undefined {
  if ((VENDORS as readonly string[]).includes(name)) return name as VendorId;
  return ALIASES.get(name);
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

export const ACCEPTED_MODEL_FORMS =
  'accepted forms: "<vendor>/<model>" with vendor one of openai, anthropic, google, azure-openai, bedrock, together, fireworks (or vendor_1..vendor_7), a bare model name starting with gpt-, o1, o3, o4, text-embedding-, dall-e, tts-, whisper, claude- or gemini-, or "@<routing-config-slug>"';

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
    if (vendor) {
      const model = value.slice(slash + 1);
      return model ? { vendor, vendorAsSent: head, model } : undefined;
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
