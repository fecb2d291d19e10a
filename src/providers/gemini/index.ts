// Google Gemini (Generative Language API) adapter: chat over generateContent / streamGenerateContent
// (SSE) and embeddings over batchEmbedContents, authenticated with `x-goog-api-key`.

import { baseUrlOr } from '../shared/base-url.ts';
import type { ChatAdapter, Credential, EmbeddingAdapter, HttpRequestSpec, Target } from '../types.ts';
import { decodeGeminiError } from './decode-error.ts';
import { fromGeminiResponse } from './decode-response.ts';
import {
  fromGeminiEmbeddingResponse,
  geminiSupportsDimensions,
  stripModelsPrefix,
  toGeminiEmbeddingBody,
} from './embeddings.ts';
import { toGeminiBody } from './encode-request.ts';
import { newGeminiStreamDecoder } from './stream-decoder.ts';

export const GEMINI_DEFAULT_BASE = 'https://generativelanguage.googleapis.com';

export function geminiBaseUrl(credential: Credential): string {
  return baseUrlOr(credential.baseUrl, GEMINI_DEFAULT_BASE);
}

function modelUrl(target: Target, method: string): string {
  const model = encodeURIComponent(stripModelsPrefix(target.model));
  return `${geminiBaseUrl(target.credential)}/v1beta/models/${model}:${method}`;
}

function post(url: string, target: Target, body: string): HttpRequestSpec {
  return {
    method: 'POST',
    url,
    headers: {
      ...target.headers,
      'content-type': 'application/json',
      'x-goog-api-key': target.credential.apiKey,
    },
    body,
  };
}

function chatUrl(target: Target, stream: boolean): string {
  return stream ? modelUrl(target, 'streamGenerateContent?alt=sse') : modelUrl(target, 'generateContent');
}

export const geminiAdapter: ChatAdapter & EmbeddingAdapter = {
  wire: 'gemini',
  streamFraming: 'sse',

  async chatRequest(req, target) {
    const { body, warnings } = toGeminiBody(req);
    return { ...post(chatUrl(target, req.stream), target, JSON.stringify(body)), warnings };
  },

  // Gemini addresses the model in the URL, so the body is forwarded as is.
  async rawChatRequest(body, target, stream) {
    return post(chatUrl(target, stream), target, body);
  },

  decodeChatResponse(body, target) {
    return fromGeminiResponse(body, target.model);
  },

  newStreamDecoder(target) {
    return newGeminiStreamDecoder(target.model);
  },

  decodeError: decodeGeminiError,

  async verifyKeyRequest(credential) {
    return {
      method: 'GET',
      url: `${geminiBaseUrl(credential)}/v1beta/models?pageSize=1`,
      headers: { 'x-goog-api-key': credential.apiKey },
    };
  },

  supportsDimensions: geminiSupportsDimensions,

  // batchEmbedContents takes every input in one call.
  async embeddingRequests(req, target) {
    const body = JSON.stringify(toGeminiEmbeddingBody(req, target.model));
    return [post(modelUrl(target, 'batchEmbedContents'), target, body)];
  },

  decodeEmbeddingResponses([body], req, target) {
    return fromGeminiEmbeddingResponse(body, req, target.model);
  },
};
