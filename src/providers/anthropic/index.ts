// The Anthropic Messages wire, spoken to Anthropic itself (Claude on Bedrock reuses its encoder and
// decoders from ../bedrock).
import type { ChatRequest } from '../../ir/types.ts';
import { baseUrlOr } from '../shared/base-url.ts';
import { lowerKeys } from '../shared/headers.ts';
import type { ChatAdapter, Credential, HttpRequestSpec, Target } from '../types.ts';
import { decodeAnthropicError } from './decode-error.ts';
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
export function anthropicBodyFor(req: ChatRequest, target: Target) {
  return toAnthropicBody({ ...req, model: target.model });
}

export const anthropicAdapter: ChatAdapter = {
  wire: 'anthropic',
  streamFraming: 'sse',
  async chatRequest(req, target) {
    const { body, warnings } = anthropicBodyFor(req, target);
    return { ...anthropicSpec(target, req.stream, JSON.stringify(body)), warnings };
  },
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
