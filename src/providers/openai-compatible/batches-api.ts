// The OpenAI wire's Batch API (openai and azure-openai), for batches the gateway passes through to
// the vendor that holds their input file: create, get and cancel. Answers come back raw so that an
// upstream error is forwarded as the vendor sent it.
import { Agent, type Dispatcher, request } from 'undici';
import { transportError, UpstreamTransportError } from '../http.ts';
import type { Credential } from '../types.ts';
import type { OpenAIVendor } from './embeddings.ts';
import { AZURE_API_VERSION, authHeaders, baseUrl } from './vendors.ts';

export interface BatchAnswer {
  status: number;
  body: Dispatcher.ResponseData['body'];
}

const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000, headersTimeout: 120_000, bodyTimeout: 120_000 });

function url(vendor: OpenAIVendor, credential: Credential, path: string): string {
  const base = baseUrl(vendor, credential);
  return vendor === 'azure-openai'
    ? `${base}/openai/batches${path}?api-version=${AZURE_API_VERSION}`
    : `${base}/batches${path}`;
}

async function send(
  vendor: OpenAIVendor,
  credential: Credential,
  method: Dispatcher.HttpMethod,
  path: string,
  body?: unknown,
): Promise<BatchAnswer> {
  try {
    const res = await request(url(vendor, credential, path), {
      dispatcher: agent,
      method,
      headers: { ...authHeaders(vendor, credential), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.body };
  } catch (err) {
    throw new UpstreamTransportError(transportError(err));
  }
}

export const openaiBatches = {
  create: (v: OpenAIVendor, c: Credential, body: unknown) => send(v, c, 'POST', '', body),
  get: (v: OpenAIVendor, c: Credential, id: string) => send(v, c, 'GET', `/${encodeURIComponent(id)}`),
  cancel: (v: OpenAIVendor, c: Credential, id: string) => send(v, c, 'POST', `/${encodeURIComponent(id)}/cancel`),
};
