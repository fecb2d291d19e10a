// The provider conformance case list: one family-neutral list, run for every vendor by a family driver
// (run-alpha.test.ts for alpha; the beta e2e suite calls the same runner with its own driver).
// Keep this format stable: other suites depend on it.

/** Vendors as keyed in test/helpers/proxy-env.ts VENDOR_MODELS (`bedrock` = Converse). */
export const CONFORMANCE_VENDORS = [
  'openai',
  'azure-openai',
  'together',
  'fireworks',
  'anthropic',
  'bedrock-anthropic',
  'google',
  'bedrock',
] as const;
export type ConformanceVendor = (typeof CONFORMANCE_VENDORS)[number];

export type NeutralPart = { type: 'text'; text: string } | { type: 'image'; source: 'data' | 'url' };

export interface NeutralToolCall {
  id: string;
  name: string;
  /** JSON text. */
  arguments: string;
}

export interface NeutralMessage {
  role: 'user' | 'assistant' | 'tool';
  content?: string | NeutralPart[];
  /** Assistant turns that called tools. */
  toolCalls?: NeutralToolCall[];
  /** Tool replies: the id of the call answered. */
  toolCallId?: string;
}

export interface NeutralTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface NeutralRequest {
  system?: string;
  messages: NeutralMessage[];
  tools?: NeutralTool[];
  responseFormat?: { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown> };
  maxTokens: number;
}

/** What the family answer must show (already normalized by the driver to neutral names). */
export type Expectation =
  | { kind: 'text'; text: string }
  /** A JSON object carrying every listed key. */
  | { kind: 'json'; keys: string[] }
  /** `finish` = tool_calls, every call with an id, a name from `names`, and parseable complete arguments. */
  | { kind: 'tool_calls'; count: number; names: string[] }
  /** Error before any stream output; `retryAfter`: the header must be kept. */
  | { kind: 'error'; status: number | number[]; code?: string; retryAfter?: boolean }
  /** A stream that starts and then ends with an error record (never hangs). */
  | { kind: 'midstream_error' }
  /** The client aborts; the gateway must abort the upstream call (log row status 499). */
  | { kind: 'aborted' };

/** What the recorded upstream request must show (vendor-neutral view, see upstream-view.ts). */
export interface UpstreamExpectation {
  system?: string;
  /** Number of conversation messages (system excluded). */
  messages?: number;
  images?: number;
  toolResults?: number;
}

export interface ConformanceCase {
  /** Stable id, e.g. `tools-single`; the runner appends ` (stream)` for the stream variant. */
  id: string;
  /** Model suffix for the fake upstream's script (`tools-2`, `fail-429`, ...). */
  script?: string;
  request: NeutralRequest;
  /** Which variants run; default both. */
  modes?: Array<'json' | 'stream'>;
  expect: Expectation;
  /** Per-vendor override of `expect`. */
  expectFor?: Partial<Record<ConformanceVendor, Expectation>>;
  /** Usage must be present with output > 0 (successful cases). */
  usage?: boolean;
  upstream?: UpstreamExpectation;
  upstreamFor?: Partial<Record<ConformanceVendor, UpstreamExpectation>>;
  /** Sent as X-Svc-Provider-Key (BYOK). */
  providerKey?: string;
  /** Skipped vendors with the reason. */
  skip?: Partial<Record<ConformanceVendor, string>>;
}

/** A 1x1 transparent PNG. */
export const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const IMAGE_URL = 'https://example.com/cat.png';

export const WEATHER_TOOL: NeutralTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
export const TIME_TOOL: NeutralTool = {
  name: 'get_time',
  description: 'Current time in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' }, ok: { type: 'boolean' } },
  required: ['answer', 'ok'],
  additionalProperties: false,
};

const user = (text: string): NeutralMessage => ({ role: 'user', content: text });
const MAX = 200;
const NATIVE_SCHEMA = 'native JSON-schema support: the upstream enforces the schema, no gateway validation';
const AUTH_BEDROCK = [401, 403];

export const CONFORMANCE_CASES: ConformanceCase[] = [
  {
    id: 'plain-text',
    request: { messages: [user('hello there')], maxTokens: MAX },
    expect: { kind: 'text', text: 'Echo: hello there' },
    usage: true,
    upstream: { messages: 1 },
  },
  {
    id: 'system-prompt',
    request: { system: 'You are terse.', messages: [user('with system')], maxTokens: MAX },
    expect: { kind: 'text', text: 'Echo: with system' },
    upstream: { system: 'You are terse.', messages: 1 },
  },
  {
    id: 'multi-turn',
    request: {
      messages: [user('first'), { role: 'assistant', content: 'Echo: first' }, user('second')],
      maxTokens: MAX,
    },
    expect: { kind: 'text', text: 'Echo: second' },
    upstream: { messages: 3 },
  },
  {
    id: 'tools-single',
    script: 'tools',
    request: { messages: [user('Paris')], tools: [WEATHER_TOOL], maxTokens: MAX },
    expect: { kind: 'tool_calls', count: 1, names: ['get_weather'] },
    usage: true,
  },
  {
    id: 'tools-parallel',
    script: 'tools-2',
    request: { messages: [user('Paris')], tools: [WEATHER_TOOL, TIME_TOOL], maxTokens: MAX },
    expect: { kind: 'tool_calls', count: 2, names: ['get_weather', 'get_time'] },
  },
  {
    id: 'tool-result-round-trip',
    script: 'tools',
    request: {
      messages: [
        user('Paris'),
        {
          role: 'assistant',
          toolCalls: [{ id: 'call_abc123', name: 'get_weather', arguments: '{"city":"Paris"}' }],
        },
        { role: 'tool', toolCallId: 'call_abc123', content: 'sunny, 21C' },
      ],
      tools: [WEATHER_TOOL],
      maxTokens: MAX,
    },
    // The fakes answer a tool result with text: the alpha-wire fakes echo the last user message, the
    // others the last user-role text, which is the tool result once translated into their wire.
    expect: { kind: 'text', text: 'Echo: Paris' },
    expectFor: {
      anthropic: { kind: 'text', text: 'Echo: sunny, 21C' },
      'bedrock-anthropic': { kind: 'text', text: 'Echo: sunny, 21C' },
      google: { kind: 'text', text: 'Echo: sunny, 21C' },
      bedrock: { kind: 'text', text: 'Echo: sunny, 21C' },
    },
    upstream: { toolResults: 1 },
  },
  {
    id: 'image-data-url',
    request: {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image', source: 'data' },
          ],
        },
      ],
      maxTokens: MAX,
    },
    expect: { kind: 'text', text: 'Echo: what is this' },
    upstream: { images: 1 },
  },
  {
    id: 'image-http-url',
    request: {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is at the url' },
            { type: 'image', source: 'url' },
          ],
        },
      ],
      maxTokens: MAX,
    },
    expect: { kind: 'text', text: 'Echo: what is at the url' },
    upstream: { images: 1 },
    // Converse takes bytes or S3 only and the gateway does not fetch URLs: the image is dropped.
    upstreamFor: { bedrock: { images: 0 } },
  },
  {
    id: 'json-mode',
    script: 'json',
    request: { messages: [user('give json')], responseFormat: { type: 'json_object' }, maxTokens: MAX },
    expect: { kind: 'json', keys: ['answer'] },
  },
  {
    id: 'json-schema',
    script: 'json',
    request: {
      messages: [user('give schema json')],
      responseFormat: { type: 'json_schema', name: 'answer', schema: ANSWER_SCHEMA },
      maxTokens: MAX,
    },
    expect: { kind: 'json', keys: ['answer', 'ok'] },
  },
  {
    id: 'json-schema-fallback-invalid',
    script: 'badjson',
    modes: ['json'],
    request: {
      messages: [user('give broken json')],
      responseFormat: { type: 'json_schema', name: 'answer', schema: ANSWER_SCHEMA },
      maxTokens: MAX,
    },
    expect: { kind: 'error', status: 502, code: 'json_schema_validation_failed' },
    skip: {
      openai: NATIVE_SCHEMA,
      'azure-openai': NATIVE_SCHEMA,
      together: NATIVE_SCHEMA,
      fireworks: NATIVE_SCHEMA,
      google: NATIVE_SCHEMA,
    },
  },
  {
    id: 'error-400',
    script: 'fail-400',
    request: { messages: [user('x')], maxTokens: MAX },
    expect: { kind: 'error', status: 400 },
  },
  {
    id: 'error-401-byok',
    providerKey: 'bad-key',
    request: { messages: [user('x')], maxTokens: MAX },
    expect: { kind: 'error', status: 401 },
    // A malformed AWS key fails signature checks: AWS answers 403 for bad credentials.
    expectFor: {
      bedrock: { kind: 'error', status: AUTH_BEDROCK },
      'bedrock-anthropic': { kind: 'error', status: AUTH_BEDROCK },
    },
  },
  {
    id: 'error-429',
    script: 'fail-429',
    request: { messages: [user('x')], maxTokens: MAX },
    expect: { kind: 'error', status: 429, retryAfter: true },
  },
  {
    id: 'error-500',
    script: 'fail-500',
    request: { messages: [user('x')], maxTokens: MAX },
    expect: { kind: 'error', status: 502 },
  },
  {
    id: 'midstream-error',
    script: 'midstream-error',
    modes: ['stream'],
    request: { messages: [user('cut me off somewhere in the middle please')], maxTokens: MAX },
    expect: { kind: 'midstream_error' },
  },
  {
    id: 'client-abort',
    script: 'hang',
    modes: ['stream'],
    request: { messages: [user('never answered')], maxTokens: MAX },
    expect: { kind: 'aborted' },
  },
];
