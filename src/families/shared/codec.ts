// What a wire family provides to the request pipeline: one object per family, so the pipeline never
// branches on which family was called.
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { StreamSummary } from '../../ir/outcome.ts';
import type { ChatRequest, ChatResponse, JsonObject, StreamEvent } from '../../ir/types.ts';
import type { SvcExtensions } from './svc.ts';
import type { SvcHeaders } from './svc-headers.ts';

export type Family = 'alpha' | 'beta';

export interface DecodedChat {
  ir: ChatRequest;
  svc: SvcExtensions;
  /** Alpha `stream_options.include_usage`: the caller wants the trailing usage chunk. */
  includeUsage: boolean;
}

export interface EncodeIds {
  requestId: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

/** A pure state machine: IR stream events in, the family's SSE records out. */
export interface StreamEncoder {
  push(ev: StreamEvent): string[];
  end(): string[];
}

export interface PassthroughOptions {
  stream: boolean;
  includeUsage: boolean;
  userOverride?: string;
  /** The caller's JSON text of `body`: sent with only the model rewritten when nothing else needs editing. */
  rawBody?: string;
}

/**
 * Relays a native upstream's stream to a caller of the same family: each upstream record goes out as
 * its own bytes unless a SPEC rule needs an edit, and what the call's record needs (usage, text, stop
 * reason, upstream error) is read into the summary by a targeted scan rather than a parse per record.
 */
export interface PassthroughStream {
  /** The caller's SSE text for one upstream record (`event` is the SSE event name, if any); '' for none. */
  push(event: string | undefined, data: string): string;
  /** What is still owed to the caller once the upstream ended (held tool-call fragments). */
  end(): string;
}

/**
 * Output options of a family's wire that have no IR slot yet change the answer (the cache keys on
 * them); the beta wire has none.
 */
export interface WireExtras {
  n?: number;
  logprobs?: boolean;
  topLogprobs?: number;
}

export interface FamilyCodec {
  readonly family: Family;
  /** `request_type` of a chat call in the request log. */
  readonly requestType: string;
  /** The upstream wire this family forwards without translation. */
  readonly nativeWire: string;
  decode(body: unknown): DecodedChat;
  encode(res: ChatResponse, ids: EncodeIds): JsonObject;
  streamEncoder(ids: EncodeIds, includeUsage: boolean): StreamEncoder;
  errorBody(e: GatewayError): JsonObject;
  /** The SSE record that ends a stream on failure: the same body as errorBody, framed as SSE. */
  errorRecord(e: GatewayError): string;
  /** The caller's body as the native upstream gets it: model rewritten, gateway keys removed. */
  passthroughBody(body: Record<string, unknown>, model: string, opts: PassthroughOptions): string;
  /** The same-family relay of one stream; it writes what it reads into `summary`. */
  passthroughStream(summary: StreamSummary, callerWantsUsage: boolean): PassthroughStream;
  /** The caller's output options without an IR slot (already validated by decode). */
  wireExtras(body: Record<string, unknown>): WireExtras;
  /** Headers only the native upstream understands (version, beta flags). */
  upstreamHeaders(hdr: SvcHeaders): Record<string, string> | undefined;
}
