// What a wire family provides to the request pipeline: one object per family, so the pipeline never
// branches on which family was called.
import type { GatewayError } from '../../errors/gateway-error.ts';
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
  /** Headers only the native upstream understands (version, beta flags). */
  upstreamHeaders(hdr: SvcHeaders): Record<string, string> | undefined;
}
