// The OpenAI wire's Batch API (openai and azure-openai), for batches the gateway passes through to
// the vendor that holds their input file: create, get and cancel. Answers come back raw so that an
// upstream error is forwarded as the vendor sent it.
import type { BatchesApi, UpstreamAnswer } from '../capabilities.ts';
import { sendStreamed, transportError, UpstreamTransportError } from '../http.ts';
import type { Credential, HttpMethod } from '../types.ts';
import type { OpenAIVendor } from './embeddings.ts';
import { mapUsage } from './map-usage.ts';
import { AZURE_API_VERSION, authHeaders, baseUrl } from './vendors.ts';

/** The batches lane keeps long bodies for Anthropic's results stream; these answers are small objects. */
const BODY_TIMEOUT_MS = 120_000;

function url(vendor: OpenAIVendor, credential: Credential, path: string): string {
  const base = baseUrl(vendor, credential);
  return vendor === 'azure-openai'
    ? `${base}/openai/batches${path}?api-version=${AZURE_API_VERSION}`
    : `${base}/batches${path}`;
}

async function send(
  vendor: OpenAIVendor,
  credential: Credential,
  method: HttpMethod,
  path: string,
  body?: unknown,
): Promise<UpstreamAnswer> {
  let target: string;
  try {
    target = url(vendor, credential, path);
  } catch (err) {
    // An address that cannot be built (azure without its base URL) reads as an unreachable upstream.
    throw new UpstreamTransportError(transportError(err));
  }
  return sendStreamed({
    lane: 'batches',
    method,
    url: target,
    headers: { ...authHeaders(vendor, credential), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    bodyTimeout: BODY_TIMEOUT_MS,
  });
}

/** The Batch API of one OpenAI-wire vendor, as the registry hands it out. */
export function openaiBatchesApi(vendor: OpenAIVendor): BatchesApi {
  return {
    create: (c, body) => send(vendor, c, 'POST', '', body),
    get: (c, id) => send(vendor, c, 'GET', `/${encodeURIComponent(id)}`),
    cancel: (c, id) => send(vendor, c, 'POST', `/${encodeURIComponent(id)}/cancel`),
    usage: mapUsage,
  };
}
