// AWS Bedrock Runtime: two chat adapters, Converse / ConverseStream for every non-Anthropic model
// and InvokeModel with Anthropic bodies for Claude, and embeddings over InvokeModel. Requests are
// SigV4-signed.
import { fromAnthropicResponse } from '../anthropic/decode-response.ts';
import { anthropicBodyFor } from '../anthropic/index.ts';
import { lowerKeys } from '../shared/headers.ts';
import type { ChatAdapter, Credential, EmbeddingAdapter, HttpRequestSpec, Target } from '../types.ts';
import { decodeBedrockError, decodeInvokeAnthropicError } from './decode-error.ts';
import { fromConverseResponse } from './decode-response.ts';
import { bedrockSupportsDimensions, decodeEmbeddingBodies, embeddingBodies } from './embeddings.ts';
import { toConverseBody } from './encode-request.ts';
import { bedrockInvokeSpec, toBedrockBody, toBedrockBodyText, VERIFY_MODEL, verifyBody } from './invoke-anthropic.ts';
import { bedrockBaseUrl, parseAwsKey, signAws } from './sigv4.ts';
import { newConverseStreamDecoder, newInvokeAnthropicStreamDecoder } from './stream-decoder.ts';

/** For callers that relay Bedrock event streams themselves (same-family pass-through). */
export { bedrockStreamException } from './decode-error.ts';

function modelUrl(credential: Credential, model: string, operation: string): string {
  return `${bedrockBaseUrl(credential)}/model/${encodeURIComponent(model)}/${operation}`;
}

function signedPost(url: string, body: string, target: Target, accept: string): Promise<HttpRequestSpec> {
  const spec: HttpRequestSpec = {
    method: 'POST',
    url,
    headers: { ...target.headers, 'content-type': 'application/json', accept },
    body,
  };
  return signAws(spec, target.credential);
}

function converseRequest(body: string, target: Target, stream: boolean): Promise<HttpRequestSpec> {
  const url = modelUrl(target.credential, target.model, stream ? 'converse-stream' : 'converse');
  return signedPost(url, body, target, stream ? 'application/vnd.amazon.eventstream' : 'application/json');
}

/**
 * Nova Micro is the cheapest text model on Bedrock; regions outside us-east-1 reach it through a
 * geography inference profile.
 */
function verifyModel(region: string): string {
  if (region.startsWith('us-')) return 'us.amazon.nova-micro-v1:0';
  if (region.startsWith('eu-')) return 'eu.amazon.nova-micro-v1:0';
  if (region.startsWith('ap-')) return 'apac.amazon.nova-micro-v1:0';
  return 'amazon.nova-micro-v1:0';
}

export const bedrockConverseAdapter: ChatAdapter = {
  wire: 'bedrock-converse',
  streamFraming: 'aws-eventstream',

  async chatRequest(req, target) {
    const { body, warnings } = toConverseBody(req);
    return { ...(await converseRequest(JSON.stringify(body), target, req.stream)), warnings };
  },

  rawChatRequest(body, target, stream) {
    return converseRequest(body, target, stream);
  },

  decodeChatResponse(body, target) {
    return fromConverseResponse(body, target.model);
  },

  newStreamDecoder(target) {
    return newConverseStreamDecoder(target.model);
  },

  decodeError: decodeBedrockError,

  /**
   * The list-models API lives on the control-plane host (bedrock.<region>), not on the runtime host a
   * credential's base URL points at, and listing is a separate IAM permission. The cheapest real
   * runtime call that answers 2xx for a working key is a one-token Converse to Nova Micro (a fraction
   * of a micro-dollar). A key without access to that model fails verification with the upstream's
   * own message (403 AccessDenied / 400 Validation).
   */
  verifyKeyRequest(credential) {
    const parsed = parseAwsKey(credential.apiKey);
    const region = 'bearer' in parsed ? 'us-east-1' : parsed.region;
    const body = JSON.stringify({
      messages: [{ role: 'user', content: [{ text: 'ping' }] }],
      inferenceConfig: { maxTokens: 1 },
    });
    const target: Target = { vendor: 'bedrock', model: verifyModel(region), credential };
    return converseRequest(body, target, false);
  },
};

/** Claude on Bedrock: the Anthropic Messages body over InvokeModel (native beta wire, pass-through eligible). */
export const bedrockAnthropicAdapter: ChatAdapter = {
  wire: 'anthropic',
  streamFraming: 'aws-eventstream',
  async chatRequest(req, target) {
    const headers = lowerKeys(target.headers);
    const { body, warnings } = anthropicBodyFor(req, target);
    const text = JSON.stringify(toBedrockBody(body, headers));
    return { ...(await bedrockInvokeSpec(target.credential, target.model, req.stream, headers, text)), warnings };
  },
  async rawChatRequest(body, target, stream) {
    const headers = lowerKeys(target.headers);
    return bedrockInvokeSpec(target.credential, target.model, stream, headers, toBedrockBodyText(body, headers));
  },
  decodeChatResponse: (body) => fromAnthropicResponse(body),
  newStreamDecoder: () => newInvokeAnthropicStreamDecoder(),
  decodeError: decodeInvokeAnthropicError,
  verifyKeyRequest: (credential) => bedrockInvokeSpec(credential, VERIFY_MODEL, false, {}, verifyBody()),
};

export const bedrockEmbeddingAdapter: EmbeddingAdapter = {
  supportsDimensions: bedrockSupportsDimensions,

  /** One signed InvokeModel spec per upstream call: one per input for Titan, batches of 96 for Cohere. */
  async embeddingRequests(req, target) {
    const url = modelUrl(target.credential, target.model, 'invoke');
    return await Promise.all(
      embeddingBodies(req, target.model).map((body) =>
        signedPost(url, JSON.stringify(body), target, 'application/json'),
      ),
    );
  },

  decodeEmbeddingResponses(bodies, req, target) {
    return decodeEmbeddingBodies(bodies, req, target.model);
  },
};
