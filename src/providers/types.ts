// The contract between the gateway core and one upstream wire. Adapters are pure translators plus
// request builders: they never perform I/O themselves (the executor in src/providers/http.ts does),
// which keeps them testable against recorded fixtures and keeps pools shared.
import type {
  ChatRequest,
  ChatResponse,
  EmbeddingRequest,
  EmbeddingResponse,
  EncodeWarning,
  StreamEvent,
  UpstreamErrorInfo,
} from '../ir/types.ts';
import type { HttpHeaders } from '../util/http-headers.ts';

export const VENDORS = ['openai', 'anthropic', 'google', 'azure-openai', 'bedrock', 'together', 'fireworks'] as const;
export type VendorId = (typeof VENDORS)[number];

/** Decrypted credential as the adapters need it. Never logged. */
export interface Credential {
  /** For bedrock: `<ACCESS_KEY_ID>::<SECRET>::<REGION>[::<SESSION_TOKEN>]`. */
  apiKey: string;
  /** Overrides the vendor's default base, written the way the vendor's SDK writes it (DESIGN.md section 7). */
  baseUrl?: string | null;
}

export interface Target {
  vendor: VendorId;
  /** Upstream model id (for azure-openai: the deployment name). */
  model: string;
  credential: Credential;
  /** Extra upstream headers decided by the family (e.g. anthropic-version / anthropic-beta). */
  headers?: Record<string, string>;
}

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface HttpRequestSpec {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** A chat request translated from the IR, with what the translation could not carry (never sent). */
export interface ChatRequestSpec extends HttpRequestSpec {
  warnings: readonly EncodeWarning[];
}

/** What a request encoder produces: the upstream body and what it left out or changed. */
export interface EncodedBody<T> {
  body: T;
  warnings: EncodeWarning[];
}

/** One upstream stream record: an SSE event, or one decoded AWS event-stream frame. */
export interface UpstreamEvent {
  /** SSE `event:` name, or the frame's `:event-type` / `:exception-type`. */
  event?: string;
  /** SSE `data:` text, or the frame payload as UTF-8. */
  data: string;
  /** AWS frames: `event` or `exception`. */
  messageType?: string;
}

/** Pure state machine from upstream stream records to IR events. */
export interface StreamDecoder {
  push(event: UpstreamEvent): StreamEvent[];
  /** Upstream closed the stream: flush open blocks, and emit `stop` if the upstream never did. */
  end(): StreamEvent[];
}

export type StreamFraming = 'sse' | 'aws-eventstream';

export interface ChatAdapter {
  /** Which wire this adapter speaks; `openai` and `anthropic` are eligible for same-family pass-through. */
  readonly wire: 'openai' | 'anthropic' | 'gemini' | 'bedrock-converse';
  readonly streamFraming: StreamFraming;
  chatRequest(req: ChatRequest, target: Target): Promise<ChatRequestSpec>;
  /**
   * Pass-through: `body` is the caller's JSON text already edited by the family (model rewritten,
   * svc:* and metadata removed). The adapter only supplies URL, auth and headers (and may rewrite the
   * model for URL-addressed wires).
   */
  rawChatRequest(body: string, target: Target, stream: boolean): Promise<HttpRequestSpec>;
  decodeChatResponse(body: unknown, target: Target): ChatResponse;
  newStreamDecoder(target: Target): StreamDecoder;
  /** Maps any upstream error (status, body text, headers) to the normalized shape. */
  decodeError(status: number, bodyText: string, headers: HttpHeaders): UpstreamErrorInfo;
  /** The cheapest authenticated call (list models where it exists), used before rotating a key. */
  verifyKeyRequest(credential: Credential): Promise<HttpRequestSpec>;
}

export interface EmbeddingAdapter {
  /** Whether the model honours a requested output size; fixed-size models get `dimensions` stripped. */
  supportsDimensions(model: string): boolean;
  /**
   * The upstream calls one embeddings request takes, in order: one for most vendors; Bedrock fans out
   * (Titan embeds one text per call, Cohere takes batches of 96).
   */
  embeddingRequests(req: EmbeddingRequest, target: Target): Promise<HttpRequestSpec[]>;
  /** Joins the parsed answers to `embeddingRequests` (same order, one per spec) into one response. */
  decodeEmbeddingResponses(bodies: unknown[], req: EmbeddingRequest, target: Target): EmbeddingResponse;
}
