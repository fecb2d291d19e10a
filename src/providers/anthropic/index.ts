// The Anthropic Messages wire, spoken to Anthropic itself and to Bedrock InvokeModel.
import type { ChatRequest } from '../../ir/types.ts';
import { baseUrlOr } from '../shared/base-url.ts';
import type { ChatAdapter, Credential, HttpRequestSpec, Target } from '../types.ts';
import { bedrockInvokeSpec, lowerKeys, toBedrockBody, toBedrockBodyText, VERIFY_MODEL, verifyBody } from './bedrock.ts';
import { newBedrockAnthropicStreamDecoder } from './bedrock-stream.ts';
import { decodeAnthropicError, decodeBedrockAnthropicError } from './decode-error.ts';
import { fromAnthropicResponse } from './decode-response.ts';
import { toAnthropicBody } from './encode-request.ts';
import { newAnthropicStreamDecoder } from './stream-decoder.ts';

export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_BASE = 'https://api.anthropic.com';

function anthropicSpec(target: Target, stream: boolean, body: string): HttpRequestSpec {
  return {
    method: 'POST',
    url: `${baseUrlOr(target.credential.baseUrl, ANTHROPIC_BASE)}/v1/messages`,
    headers: {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
      // The family may pin anthropic-version or add anthropic-beta; those win over the default.
      ...lowerKeys(target.headers),
      'x-api-key': target.credential.apiKey,
    },
    body,
  };
}

/** The target decides the model: one IR request may be tried against several targets (fallbacks). */
function bodyFor(req: ChatRequest, target: Target) {
  return toAnthropicBody({ ...req, model: target.model });
}

export const anthropicAdapter: ChatAdapter = {
  wire: 'anthropic',
  streamFraming: 'sse',
  chatRequest: async (req, target) => anthropicSpec(target, req.stream, JSON.stringify(bodyFor(req, target))),
  rawChatRequest: async (body, target, stream) => anthropicSpec(target, stream, body),
  decodeChatResponse: (body) => fromAnthropicResponse(body),
  newStreamDecoder: () => newAnthropicStreamDecoder(),
  decodeError: decodeAnthropicError,
  async verifyKeyRequest(credential: Credential): Promise<HttpRequestSpec> {
    return {
      method: 'GET',
      url: `${baseUrlOr(credential.baseUrl, ANTHROPIC_BASE)}/v1/models`,
      headers: { 'x-api-key': credential.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
    };
  },
};

export const bedrockAnthropicAdapter: ChatAdapter = {
  wire: 'anthropic',
  streamFraming: 'aws-eventstream',
  async chatRequest(req, target) {
    const headers = lowerKeys(target.headers);
    const body = JSON.stringify(toBedrockBody(bodyFor(req, target), headers));
    return bedrockInvokeSpec(target.credential, target.model, req.stream, headers, body);
  },
  async rawChatRequest(body, target, stream) {
    const headers = lowerKeys(target.headers);
    return bedrockInvokeSpec(target.credential, target.model, stream, headers, toBedrockBodyText(body, headers));
  },
  decodeChatResponse: (body) => fromAnthropicResponse(body),
  newStreamDecoder: () => newBedrockAnthropicStreamDecoder(),
  decodeError: decodeBedrockAnthropicError,
  verifyKeyRequest: (credential) => bedrockInvokeSpec(credential, VERIFY_MODEL, false, {}, verifyBody()),
};
