import type { VendorId } from '../types.ts';

/** USD per 1M tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Tokens served from the upstream's prompt cache. */
  cacheRead: number;
  /** Tokens written to the prompt cache (Anthropic 5-minute tier: 1.25x input). */
  cacheWrite: number;
}

/** Higher rates some vendors charge once the prompt passes a size (Gemini Pro, Sonnet 1M beta). */
export interface LongContextPrice extends ModelPrice {
  /** Applies when input + cacheRead + cacheWrite exceeds this many tokens. */
  threshold: number;
}

export type ModelKind = 'chat' | 'embedding';

export interface ModelInfo {
  vendor: VendorId;
  /** The catalog id (the vendor's canonical model id). */
  id: string;
  kind: ModelKind;
  price: ModelPrice;
  longContext?: LongContextPrice;
  /** Maximum prompt tokens (for embeddings: maximum tokens per input). */
  contextWindow: number;
  /** Maximum generated tokens (0 for embeddings). */
  maxOutput: number;
  tools: boolean;
  images: boolean;
  /** The upstream can hold output to a caller's JSON schema (natively or via a forced tool call). */
  jsonSchema: boolean;
  /** The upstream has a native "answer with a JSON object" switch. */
  jsonMode: boolean;
  /** Reasoning / extended thinking model. */
  thinking: boolean;
  /** Embeddings: default vector size. */
  dimensions?: number;
  /** Embeddings: whether a requested `dimensions` is honoured (fixed-size models get it stripped). */
  supportsDimensions?: boolean;
  /** Embeddings: the only sizes accepted, when the model restricts them (Titan v2: 256/512/1024). */
  allowedDimensions?: readonly number[];
  note?: string;
}

export interface VendorCatalog {
  vendor: VendorId;
  /** Pricing page and as-of date; figures are public list prices, not invoices. */
  source: string;
  notes: string;
  models: readonly ModelInfo[];
}
