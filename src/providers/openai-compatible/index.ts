// One adapter per OpenAI-wire vendor (openai, azure-openai, together, fireworks): same bodies,
// different base URL, path and auth (vendors.ts).
import type { ChatRequest, EmbeddingRequest } from '../../ir/types.ts';
import type { ChatAdapter, ChatRequestSpec, Credential, EmbeddingAdapter, HttpRequestSpec, Target } from '../types.ts';
import { openaiCapabilities } from './capabilities.ts';
import { decodeOpenAIError } from './decode-error.ts';
import { fromOpenAIChatResponse } from './decode-response.ts';
import { fromEmbeddingResponse, type OpenAIVendor, supportsDimensions, toEmbeddingBody } from './embeddings.ts';
import { toOpenAIChatBody } from './encode-request.ts';
import { newOpenAIStreamDecoder } from './stream-decoder.ts';
import { authHeaders, modelsUrl, operationUrl } from './vendors.ts';

export type { OpenAIVendor } from './embeddings.ts';

function headersFor(vendor: OpenAIVendor, target: Target, stream: boolean): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    ...target.headers,
    ...authHeaders(vendor, target.credential),
  };
}

function build(vendor: OpenAIVendor): ChatAdapter & EmbeddingAdapter {
  return {
    wire: 'openai',
    streamFraming: 'sse',
    async chatRequest(req: ChatRequest, target: Target): Promise<ChatRequestSpec> {
      // The target decides the model: one IR request may be tried against several targets (fallbacks).
      const { body, warnings } = toOpenAIChatBody({ ...req, model: target.model }, openaiCapabilities(vendor));
      return {
        method: 'POST',
        url: operationUrl(vendor, target.credential, 'chat/completions', target.model),
        headers: headersFor(vendor, target, req.stream),
        body: JSON.stringify(body),
        warnings,
      };
    },
    async rawChatRequest(body: string, target: Target, stream: boolean): Promise<HttpRequestSpec> {
      return {
        method: 'POST',
        url: operationUrl(vendor, target.credential, 'chat/completions', target.model),
        headers: headersFor(vendor, target, stream),
        body,
      };
    },
    decodeChatResponse: (body) => fromOpenAIChatResponse(body),
    newStreamDecoder: () => newOpenAIStreamDecoder(),
    decodeError: decodeOpenAIError,
    async verifyKeyRequest(credential: Credential): Promise<HttpRequestSpec> {
      return { method: 'GET', url: modelsUrl(vendor, credential), headers: authHeaders(vendor, credential) };
    },
    supportsDimensions: (model: string) => supportsDimensions(vendor, model),
    async embeddingRequests(req: EmbeddingRequest, target: Target): Promise<HttpRequestSpec[]> {
      return [
        {
          method: 'POST',
          url: operationUrl(vendor, target.credential, 'embeddings', target.model),
          headers: headersFor(vendor, target, false),
          body: JSON.stringify(toEmbeddingBody(vendor, { ...req, model: target.model })),
        },
      ];
    },
    // One call per request, so one answer.
    decodeEmbeddingResponses: ([body], req) => fromEmbeddingResponse(body, req),
  };
}

const adapters = new Map<OpenAIVendor, ChatAdapter & EmbeddingAdapter>();

export function openaiCompatibleAdapter(vendor: OpenAIVendor): ChatAdapter & EmbeddingAdapter {
  let adapter = adapters.get(vendor);
  if (!adapter) {
    adapter = build(vendor);
    adapters.set(vendor, adapter);
  }
  return adapter;
}
