// Anthropic's Message Batches API, for batches the gateway passes through unchanged: create, get,
// cancel, delete, and the results stream. Answers come back raw (status, headers, body not yet read)
// so that the caller forwards an upstream error as the vendor sent it.
import type { BatchCallOptions, InlineBatchesApi, UpstreamAnswer } from '../capabilities.ts';
import { sendStreamed } from '../http.ts';
import { baseUrlOr } from '../shared/base-url.ts';
import type { Credential, HttpMethod } from '../types.ts';
import { ANTHROPIC_BASE, ANTHROPIC_VERSION } from './index.ts';
import { mapUsage } from './map-usage.ts';

function headers(credential: Credential, version: string | undefined): Record<string, string> {
  return {
    'x-api-key': credential.apiKey,
    'anthropic-version': version ?? ANTHROPIC_VERSION,
    'content-type': 'application/json',
  };
}

const root = (credential: Credential) => `${baseUrlOr(credential.baseUrl, ANTHROPIC_BASE)}/v1/messages/batches`;
const one = (credential: Credential, id: string) => `${root(credential)}/${encodeURIComponent(id)}`;

function send(
  url: string,
  method: HttpMethod,
  credential: Credential,
  opts: BatchCallOptions | undefined,
  body?: string,
): Promise<UpstreamAnswer> {
  return sendStreamed({ lane: 'batches', method, url, headers: headers(credential, opts?.version), body });
}

/** Anthropic's Message Batches, as the registry hands them out. */
export const anthropicBatchesApi: InlineBatchesApi = {
  create: (c, body, opts) => send(root(c), 'POST', c, opts, JSON.stringify(body)),
  get: (c, id, opts) => send(one(c, id), 'GET', c, opts),
  cancel: (c, id, opts) => send(`${one(c, id)}/cancel`, 'POST', c, opts),
  delete: (c, id, opts) => send(one(c, id), 'DELETE', c, opts),
  results: (c, id, resultsUrl, opts) => send(resultsUrl ?? `${one(c, id)}/results`, 'GET', c, opts),
  usage: mapUsage,
};
