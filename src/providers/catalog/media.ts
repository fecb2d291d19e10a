// Prices of the endpoints that are not billed per chat token: images, speech, transcription and
// translation (prices/media.json, with each vendor's source). Loaded once; a malformed file fails at
// start, as the token catalog does.
import { readFileSync } from 'node:fs';
import type { Usage } from '../../ir/types.ts';
import { isRecord, type UnknownRecord } from '../../util/json.ts';
import { VENDORS, type VendorId } from '../types.ts';
import { normalizeModelId } from './normalize.ts';
import type { ModelPrice } from './types.ts';

export type MediaPrice =
  | {
      kind: 'image';
      /** By `size`, or `hd:size` where the quality changes the price. */
      perImage?: Readonly<Record<string, number>>;
      perMegapixel?: number;
      /** Token-billed image models (USD per 1M). */
      inputPer1m?: number;
      outputPer1m?: number;
      defaultSize?: string;
    }
  | { kind: 'speech'; per1mChars: number }
  | { kind: 'transcription'; perMinute: number };

function fail(where: string, msg: string): never {
  throw new Error(`media price catalog ${where}: ${msg}`);
}

function optNum(o: UnknownRecord, key: string, where: string): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(where, `${key} must be a non-negative number`);
  return v;
}

function reqNum(o: UnknownRecord, key: string, where: string): number {
  return optNum(o, key, where) ?? fail(where, `${key} is required`);
}

export function parseMediaPrice(where: string, raw: unknown): MediaPrice {
  if (!isRecord(raw)) fail(where, 'entry must be an object');
  switch (raw.kind) {
    case 'image': {
      const per = raw.per_image;
      if (per !== undefined && (!isRecord(per) || !Object.values(per).every((v) => typeof v === 'number' && v >= 0)))
        fail(where, 'per_image must map sizes to prices');
      return {
        kind: 'image',
        perImage: per as Record<string, number> | undefined,
        perMegapixel: optNum(raw, 'per_megapixel', where),
        inputPer1m: optNum(raw, 'input_per_1m', where),
        outputPer1m: optNum(raw, 'output_per_1m', where),
        defaultSize: typeof raw.default_size === 'string' ? raw.default_size : undefined,
      };
    }
    case 'speech':
      return { kind: 'speech', per1mChars: reqNum(raw, 'per_1m_chars', where) };
    case 'transcription':
      return { kind: 'transcription', perMinute: reqNum(raw, 'per_minute', where) };
    default:
      return fail(where, 'kind must be image, speech or transcription');
  }
}

/** One priced media model as the file names it (the model catalog lists these). */
export interface MediaModel {
  vendor: VendorId;
  id: string;
  price: MediaPrice;
}

const listed: MediaModel[] = [];

function load(): Map<string, MediaPrice> {
  const raw: unknown = JSON.parse(readFileSync(new URL('./prices/media.json', import.meta.url), 'utf8'));
  const out = new Map<string, MediaPrice>();
  if (!isRecord(raw) || !isRecord(raw.vendors)) fail('media.json', 'vendors must be an object');
  for (const [vendor, entry] of Object.entries(raw.vendors)) {
    if (!(VENDORS as readonly string[]).includes(vendor)) fail(vendor, 'unknown vendor');
    if (!isRecord(entry) || typeof entry.source !== 'string' || !isRecord(entry.models))
      fail(vendor, 'needs a source and models');
    for (const [model, raw] of Object.entries(entry.models)) {
      const price = parseMediaPrice(`${vendor}/${model}`, raw);
      out.set(`${vendor}/${normalizeModelId(vendor as VendorId, model)}`, price);
      listed.push({ vendor: vendor as VendorId, id: model, price });
    }
  }
  return out;
}

const prices = load();

/** Every media model the price file lists, in file order. */
export function listMediaModels(): readonly MediaModel[] {
  return listed;
}

export function mediaPrice(vendor: VendorId, model: string): MediaPrice | undefined {
  return prices.get(`${vendor}/${normalizeModelId(vendor, model)}`) ?? prices.get(`${vendor}/${model}`);
}

const round = (usd: number) => Math.round(usd * 1e9) / 1e9;

/** What an images call asked for: how many, what size and quality, and the upstream's token usage. */
export interface ImageBill {
  n: number;
  size?: string;
  quality?: string;
  usage?: Usage;
}

/**
 * Whether a model is billed per image, per character or per minute: a price override (USD per 1M
 * tokens) cannot express its price, so the settings service refuses one for it.
 */
export function billedPerUnit(vendor: VendorId, model: string): boolean {
  const p = mediaPrice(vendor, model);
  if (p === undefined) return false;
  return p.kind !== 'image' || p.inputPer1m === undefined || p.outputPer1m === undefined;
}

/**
 * USD of an images call; undefined when neither the catalog nor `price` (the org's override, per
 * 1M tokens, for token-billed image models) prices it.
 */
export function imageCost(vendor: VendorId, model: string, bill: ImageBill, price?: ModelPrice): number | undefined {
  if (price !== undefined && bill.usage !== undefined)
    return round((bill.usage.input * price.input + bill.usage.output * price.output) / 1_000_000);
  const p = mediaPrice(vendor, model);
  if (p?.kind !== 'image') return undefined;
  if (p.inputPer1m !== undefined && p.outputPer1m !== undefined && bill.usage !== undefined)
    return round((bill.usage.input * p.inputPer1m + bill.usage.output * p.outputPer1m) / 1_000_000);
  const size = bill.size && bill.size !== 'auto' ? bill.size : p.defaultSize;
  if (size === undefined) return undefined;
  if (p.perImage !== undefined) {
    const hd = bill.quality === 'hd' || bill.quality === 'high' ? p.perImage[`hd:${size}`] : undefined;
    const each = hd ?? p.perImage[size];
    return each === undefined ? undefined : round(each * bill.n);
  }
  if (p.perMegapixel !== undefined) {
    const m = /^(\d+)x(\d+)$/.exec(size);
    if (!m) return undefined;
    return round(((Number(m[1]) * Number(m[2])) / 1_000_000) * p.perMegapixel * bill.n);
  }
  return undefined;
}

export function speechCost(vendor: VendorId, model: string, characters: number): number | undefined {
  const p = mediaPrice(vendor, model);
  return p?.kind === 'speech' ? round((characters * p.per1mChars) / 1_000_000) : undefined;
}

export function transcriptionCost(vendor: VendorId, model: string, seconds: number): number | undefined {
  const p = mediaPrice(vendor, model);
  return p?.kind === 'transcription' ? round((seconds / 60) * p.perMinute) : undefined;
}
