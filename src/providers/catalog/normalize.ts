// Turns the many spellings of one model id into a comparable key. Callers send ids the way each
// vendor's console or SDK shows them (dated snapshots, regional inference profiles, ARNs, account
// paths), while the catalog holds one canonical id per model. The same function is applied to
// catalog ids and to looked-up ids, so both sides always agree.
import type { VendorId } from '../types.ts';

const FIREWORKS_PREFIX = /^accounts\/fireworks\/models\//;
const GOOGLE_PREFIX = /^(?:publishers\/google\/)?models\//;
// Cross-region inference profiles prefix the foundation model id with a geography.
const BEDROCK_REGION = /^(?:us-gov|us|eu|apac|ap|jp|au|ca|global)\./;

/** Vendor-specific wrappers around the model id: lowercased, prefixes and ARNs removed. */
export function stripWrappers(vendor: VendorId, model: string): string {
  let s = model.trim().toLowerCase();
  if (vendor === 'fireworks') s = s.replace(FIREWORKS_PREFIX, '');
  else if (vendor === 'google') s = s.replace(GOOGLE_PREFIX, '');
  else if (vendor === 'bedrock') {
    // Foundation-model and inference-profile ARNs end with `/<model id>`.
    if (s.startsWith('arn:')) s = s.slice(s.lastIndexOf('/') + 1);
    s = s.replace(BEDROCK_REGION, '');
  }
  return s;
}

/** Removes snapshot dates and `latest` tags, which never change the list price within a model. */
export function stripDates(vendor: VendorId, s: string): string {
  // Anthropic and Bedrock: `-20250929`, also before Bedrock's `-v1:0` version tail.
  s = s.replace(/-\d{8}(?=-v\d|$)/, '');
  // Vertex-style `@20241022` / `@latest`.
  s = s.replace(/@(?:\d{8}|latest|default)$/, '');
  // OpenAI / Azure: `-2024-08-06`.
  s = s.replace(/-\d{4}-\d{2}-\d{2}$/, '');
  if (vendor === 'openai' || vendor === 'azure-openai') {
    // Older OpenAI snapshots: `-0613`, `-0125` (month + day).
    s = s.replace(/-(?:0[1-9]|1[0-2])\d{2}$/, '');
  }
  if (vendor === 'google' && s.startsWith('gemini-')) {
    // Stable revision suffixes (`-001`) and dated previews (`-preview-05-20`, `-preview-09-2025`).
    s = s.replace(/-\d{3}$/, '').replace(/-preview-\d{2}-\d{2,4}$/, '-preview');
  }
  if (vendor !== 'openai' && vendor !== 'azure-openai') s = s.replace(/-latest$/, '');
  return s;
}

/** The key both catalog ids and requested ids are compared by. */
export function normalizeModelId(vendor: VendorId, model: string): string {
  return stripDates(vendor, stripWrappers(vendor, model));
}

/**
 * A looser key without Bedrock-style version tails (`-v1:0`, `-v2`), for callers that spell the
 * version differently. Only used when it identifies a single catalog entry.
 */
export function looseModelId(normalized: string): string {
  return normalized.replace(/-v\d+(?::\d+)?$/, '').replace(/:\d+$/, '');
}

/**
 * Whether `key` is a prefix of `model` that ends on an id boundary. A following version number
 * (`claude-opus-4` vs `claude-opus-4-6`, `gpt-4` vs `gpt-4.5`, `nova-pro` vs `nova-pro-v2`) means a different model, whose
 * price may differ, so it does not count.
 */
export function isPrefixMatch(model: string, key: string): boolean {
  if (model.length <= key.length || !model.startsWith(key)) return false;
  const rest = model.slice(key.length);
  if (/^[-_:@/]v?[0-9]/.test(rest) || rest[0] === '.') return false;
  return /^[-_:@/]/.test(rest);
}
