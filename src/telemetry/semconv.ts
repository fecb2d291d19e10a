// The attribute names the spans use. The GenAI ones are still "development" status upstream, and the
// semantic-conventions package advises copying those rather than importing its incubating entry
// point at run time; test/telemetry/semconv.test.ts checks each copy against the package.

export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const GEN_AI_REQUEST_TOP_K = 'gen_ai.request.top_k';
export const GEN_AI_REQUEST_STOP_SEQUENCES = 'gen_ai.request.stop_sequences';
export const GEN_AI_REQUEST_SEED = 'gen_ai.request.seed';
export const GEN_AI_REQUEST_PRESENCE_PENALTY = 'gen_ai.request.presence_penalty';
export const GEN_AI_REQUEST_FREQUENCY_PENALTY = 'gen_ai.request.frequency_penalty';
export const GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';

// Stable names.
export const ERROR_TYPE = 'error.type';
export const SERVER_ADDRESS = 'server.address';
export const SERVER_PORT = 'server.port';
export const HTTP_REQUEST_METHOD = 'http.request.method';
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';

/** Switchyard's vendor ids as the conventions' `gen_ai.provider.name` values; the rest pass as they are. */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  'azure-openai': 'azure.ai.openai',
  bedrock: 'aws.bedrock',
};

export function providerName(vendor: string): string {
  return PROVIDER_NAMES[vendor] ?? vendor;
}
