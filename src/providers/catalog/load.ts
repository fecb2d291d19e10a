// Reads and checks the per-vendor price files once, at module load. A malformed file is a build
// mistake, so it fails loudly here instead of turning into silent zero costs on the hot path.
import { readFileSync } from 'node:fs';
import { isRecord, type UnknownRecord } from '../../util/json.ts';
import { VENDORS, type VendorId } from '../types.ts';
import type { LongContextPrice, ModelInfo, ModelPrice, VendorCatalog } from './types.ts';

function fail(where: string, msg: string): never {
  throw new Error(`price catalog ${where}: ${msg}`);
}

function num(o: UnknownRecord, key: string, where: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(where, `${key} must be a non-negative number`);
  return v;
}

function bool(o: UnknownRecord, key: string, where: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') fail(where, `${key} must be a boolean`);
  return v;
}

function str(o: UnknownRecord, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v.length === 0) fail(where, `${key} must be a non-empty string`);
  return v;
}

function price(o: UnknownRecord, where: string): ModelPrice {
  return {
    input: num(o, 'input', where),
    output: num(o, 'output', where),
    cacheRead: num(o, 'cache_read', where),
    cacheWrite: num(o, 'cache_write', where),
  };
}

function longContext(v: unknown, where: string): LongContextPrice | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v)) fail(where, 'long_context must be an object');
  return { ...price(v, `${where}.long_context`), threshold: num(v, 'threshold', `${where}.long_context`) };
}

function dimensionList(v: unknown, where: string): number[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((d) => Number.isInteger(d) && d > 0)) {
    fail(where, 'allowed_dimensions must be a list of positive integers');
  }
  return v;
}

export function parseModel(vendor: VendorId, id: string, raw: unknown): ModelInfo {
  const where = `${vendor}/${id}`;
  if (!isRecord(raw)) fail(where, 'model entry must be an object');
  const kind = raw.kind ?? 'chat';
  if (kind !== 'chat' && kind !== 'embedding') fail(where, 'kind must be "chat" or "embedding"');
  const info: ModelInfo = {
    vendor,
    id,
    kind,
    price: price(raw, where),
    contextWindow: num(raw, 'context_window', where),
    maxOutput: num(raw, 'max_output', where),
    tools: bool(raw, 'tools', where),
    images: bool(raw, 'images', where),
    jsonSchema: bool(raw, 'json_schema', where),
    jsonMode: bool(raw, 'json_mode', where),
    thinking: bool(raw, 'thinking', where),
  };
  const lc = longContext(raw.long_context, where);
  if (lc) info.longContext = lc;
  if (typeof raw.note === 'string') info.note = raw.note;
  if (kind === 'embedding') {
    info.dimensions = num(raw, 'dimensions', where);
    info.supportsDimensions = bool(raw, 'supports_dimensions', where);
    const allowed = dimensionList(raw.allowed_dimensions, where);
    if (allowed) info.allowedDimensions = Object.freeze(allowed);
  }
  return Object.freeze(info);
}

export function parseVendorFile(vendor: VendorId, raw: unknown): VendorCatalog {
  if (!isRecord(raw)) fail(vendor, 'file must hold an object');
  if (raw.vendor !== vendor) fail(vendor, `file names vendor ${String(raw.vendor)}`);
  const models = raw.models;
  if (!isRecord(models)) fail(vendor, 'models must be an object keyed by model id');
  return {
    vendor,
    source: str(raw, 'source', vendor),
    notes: typeof raw.notes === 'string' ? raw.notes : '',
    models: Object.entries(models).map(([id, entry]) => parseModel(vendor, id, entry)),
  };
}

export function loadCatalogs(): VendorCatalog[] {
  return VENDORS.map((vendor) => {
    const text = readFileSync(new URL(`./prices/${vendor}.json`, import.meta.url), 'utf8');
    return parseVendorFile(vendor, JSON.parse(text) as unknown);
  });
}
