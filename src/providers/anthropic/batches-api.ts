// Anthropic's Message Batches API, for batches the gateway passes through unchanged: create, get,
// cancel, delete, and the results stream. Answers come back raw (status, headers, body not yet read)
// so that the caller forwards an upstream error as the vendor sent it.
import { Agent, type Dispatcher, request } from 'undici';
import { transportError, UpstreamTransportError } from '../http.ts';
import { baseUrlOr } from '../shared/base-url.ts';
import type { Credential } from '../types.ts';
import { ANTHROPIC_BASE, ANTHROPIC_VERSION } from './index.ts';

export interface BatchAnswer {
  status: number;
  body: Dispatcher.ResponseData['body'];
}

const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000, headersTimeout: 120_000, bodyTimeout: 600_000 });

function headers(credential: Credential, version: string | undefined): Record<string, string> {
  return {
    'x-api-key': credential.apiKey,
    'anthropic-version': version ?? ANTHROPIC_VERSION,
    'content-type': 'application/json',
  };
}

const root = (credential: Credential) => `${baseUrlOr(credential.baseUrl, ANTHROPIC_BASE)}/v1/messages/batches`;

async function send(
  url: string,
  method: Dispatcher.HttpMethod,
  credential: Credential,
  version: string | undefined,
  body?: string,
): Promise<BatchAnswer> {
  try {
    const res = await request(url, { dispatcher: agent, method, headers: headers(credential, version), body });
    return { status: res.statusCode, body: res.body };
  } catch (err) {
    throw new UpstreamTransportError(transportError(err));
  }
}

export const anthropicBatches = {
  create: (c: Credential, body: unknown, version?: string) => send(root(c), 'POST', c, version, JSON.stringify(body)),
  get: (c: Credential, id: string, version?: string) => send(`${root(c)}/${encodeURIComponent(id)}`, 'GET', c, version),
  cancel: (c: Credential, id: string, version?: string) =>
    send(`${root(c)}/${encodeURIComponent(id)}/cancel`, 'POST', c, version),
  delete: (c: Credential, id: string, version?: string) =>
    send(`${root(c)}/${encodeURIComponent(id)}`, 'DELETE', c, version),
  /** The JSONL results: the vendor's `results_url` when it gave one, else the documented path. */
  results: (c: Credential, id: string, resultsUrl: string | null, version?: string) =>
    send(resultsUrl ?? `${root(c)}/${encodeURIComponent(id)}/results`, 'GET', c, version),
};
