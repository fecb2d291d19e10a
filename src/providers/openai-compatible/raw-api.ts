// Pass-through calls on the OpenAI wire for the endpoints the gateway does not translate: the
// Responses API, images and audio. The body goes out as the caller wrote it (with the upstream's
// model name in place of the caller's) and the answer comes back unread, status, headers and bytes,
// so JSON, SSE and audio streams all pass through without being buffered or re-encoded.
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher, request } from 'undici';
import { transportError, UpstreamTransportError } from '../http.ts';
import type { Credential } from '../types.ts';
import type { OpenAIVendor } from './embeddings.ts';
import { AZURE_API_VERSION, authHeaders, baseUrl } from './vendors.ts';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Unread: `text()`, `json()`, iterate or pipe it, or `dump()` it. */
  body: Dispatcher.ResponseData['body'];
}

export interface RawRequest {
  vendor: OpenAIVendor;
  credential: Credential;
  method: Dispatcher.HttpMethod;
  /** Relative to the API root: `/responses`, `/images/generations`, `/audio/speech`... */
  path: string;
  query?: Record<string, string | undefined>;
  /** Azure classic endpoints address the deployment (the model) in the path. */
  deployment?: string;
  /** Sent as is; a content type goes in `headers`. */
  body?: string | Buffer | Uint8Array | null;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const agent = new Agent({
  connections: 128,
  keepAliveTimeout: 30_000,
  // Image generation and long speech can take minutes before the first byte.
  headersTimeout: 300_000,
  bodyTimeout: 300_000,
});

/**
 * The upstream URL. Azure: the Responses API lives under `/openai/v1` (no api-version); images and
 * audio under the deployment, with the GA api-version.
 */
export function rawUrl(r: Pick<RawRequest, 'vendor' | 'credential' | 'path' | 'query' | 'deployment'>): string {
  const base = baseUrl(r.vendor, r.credential);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined) params.set(k, v);
  let root = base;
  if (r.vendor === 'azure-openai') {
    if (r.deployment === undefined) root = `${base}/openai/v1`;
    else {
      root = `${base}/openai/deployments/${encodeURIComponent(r.deployment)}`;
      params.set('api-version', AZURE_API_VERSION);
    }
  }
  const qs = params.toString();
  return `${root}${r.path}${qs === '' ? '' : `?${qs}`}`;
}

/** The answer's content type (the first, if repeated), or `fallback` when it names none. */
export function contentTypeOf(answer: Pick<RawAnswer, 'headers'>, fallback = 'application/json'): string {
  const ct = answer.headers['content-type'];
  return (Array.isArray(ct) ? ct[0] : ct) ?? fallback;
}

/** One upstream call; only a call that got no answer at all throws (UpstreamTransportError). */
export async function sendRaw(r: RawRequest): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...authHeaders(r.vendor, r.credential), ...r.headers };
  try {
    const res = await request(rawUrl(r), {
      dispatcher: agent,
      method: r.method,
      headers,
      body: r.body ?? null,
      signal: r.signal,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  } catch (err) {
    throw new UpstreamTransportError(transportError(err, r.signal));
  }
}
