// Canonical intermediate representation shared by both wire families and every upstream adapter.
// It is a superset of the two families: block based (like the messages family) so that nothing an
// upstream can say (thinking, signatures, cache hints, parallel tool calls) is lost in the middle.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface CacheControl {
  type: 'ephemeral';
  ttl?: string;
}

export interface TextBlock {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
}

export type ImageSource = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

export interface ImageBlock {
  type: 'image';
  source: ImageSource;
  cacheControl?: CacheControl;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  /** Parsed arguments. Upstreams that send arguments as text are parsed once, at decode time. */
  input: JsonValue;
  cacheControl?: CacheControl;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  /** Text and images; images are dropped by encoders of wires that cannot carry them (SPEC: text-only cross-provider). */
  content: Array<TextBlock | ImageBlock>;
  isError?: boolean;
  cacheControl?: CacheControl;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  /** Opaque; must be echoed back verbatim to the upstream that produced it. */
  signature?: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type Block = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock;

export interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

export interface Tool {
  name: string;
  description?: string;
  /** JSON schema of the arguments (always an object schema). */
  inputSchema: JsonObject;
  cacheControl?: CacheControl;
}

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  /** The model must call some tool (alpha `required`, beta `any`). */
  | { type: 'any' }
  | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: JsonObject; strict?: boolean; description?: string };

export interface ThinkingConfig {
  type: 'enabled';
  budgetTokens: number;
}

export interface Params {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  responseFormat?: ResponseFormat;
  thinking?: ThinkingConfig;
  parallelToolCalls?: boolean;
  /** End-user id forwarded to upstreams that accept one. */
  user?: string;
  /** Alpha-family sampling penalties (-2..2); wires without them drop them with a warning. */
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Token id (as the upstream's tokenizer numbers it) -> bias, -100..100. */
  logitBias?: Record<string, number>;
}

/**
 * Something of the request an encoder could not carry to its upstream, as a short code naming the
 * caller's field: `dropped:top_k`, `clamped:temperature`, `dropped:tool_result_image`. `silent` marks
 * what SPEC says is dropped without a word (the alpha pass-through fields off alpha upstreams,
 * `thinking` off native beta upstreams): the decision trace notes it, the `x-svc-warnings` header does not.
 */
export interface EncodeWarning {
  code: string;
  silent?: true;
}

export interface ChatRequest {
  /** The upstream model id (already resolved from the caller's `vendor/model` or `@slug`). */
  model: string;
  system: TextBlock[];
  messages: Message[];
  tools: Tool[];
  toolChoice?: ToolChoice;
  params: Params;
  stream: boolean;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'content_filter' | 'error';

export interface Usage {
  input: number;
  output: number;
  /** Tokens read from the upstream's prompt cache (billed at a discount). */
  cacheRead?: number;
  /** Tokens written to the upstream's prompt cache (billed at a premium). */
  cacheWrite?: number;
}

export interface ChatResponse {
  id: string;
  model: string;
  content: Block[];
  stopReason: StopReason;
  /** The upstream's own stop value, kept for logs and for encoders that can say more than the IR. */
  rawStopReason?: string;
  stopSequence?: string | null;
  usage: Usage;
}

/** Block header announced by `block_start`; its body arrives as deltas. */
export type BlockStart =
  | { type: 'text' }
  | { type: 'thinking' }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string };

/**
 * Stream events. Block indexes are contiguous from 0 in order of `block_start`; at most one block is
 * open at a time (a decoder closes the open block before starting the next). `usage` carries
 * cumulative values: a later event overrides earlier ones field by field.
 */
export type StreamEvent =
  | { type: 'start'; id: string; model: string; usage?: Partial<Usage> }
  | { type: 'block_start'; index: number; block: BlockStart }
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'thinking_delta'; index: number; text: string }
  | { type: 'signature_delta'; index: number; signature: string }
  | { type: 'tool_args_delta'; index: number; partialJson: string }
  | { type: 'block_stop'; index: number }
  | { type: 'usage'; usage: Partial<Usage> }
  | { type: 'stop'; stopReason: StopReason; rawStopReason?: string; stopSequence?: string | null }
  | { type: 'error'; error: UpstreamErrorInfo };

export interface EmbeddingRequest {
  model: string;
  input: string[];
  dimensions?: number;
  user?: string;
}

export interface EmbeddingResponse {
  model: string;
  vectors: number[][];
  usage: { input: number };
}

/** Normalized upstream failure; `raw` keeps the upstream body for logs. */
export interface UpstreamErrorInfo {
  status: number;
  /** Coarse class used for family error shapes and retry rules. */
  kind:
    | 'invalid_request'
    | 'authentication'
    | 'permission'
    | 'not_found'
    | 'rate_limit'
    | 'overloaded'
    | 'server'
    | 'timeout'
    | 'network';
  message: string;
  code?: string | null;
  param?: string | null;
  retryable: boolean;
  /** Seconds, from `retry-after` (or `retry-after-ms` / 1000). */
  retryAfter?: string;
  raw?: string;
}
