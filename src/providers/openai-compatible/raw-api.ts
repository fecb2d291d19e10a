// Pass-through calls on the OpenAI wire for the endpoints the gateway does not translate: the
// Responses API, images and audio. The body goes out as the caller wrote it (with the upstream's
// model name in place of the caller's) and the answer comes back unread, status, headers and bytes,
// so JSON, SSE and audio streams all pass through without being buffered or re-encoded.
import type { MediaApi, PassthroughRequest, ResponsesApi, UpstreamAnswer } from '../capabilities.ts';
import { sendStreamed, transportError, UpstreamTransportError } from '../http.ts';
import type { Credential } from '../types.ts';
import type { OpenAIVendor } from './embeddings.ts';
import { mapResponsesUsage } from './map-usage.ts';
import { AZURE_API_VERSION, authHeaders, baseUrl } from './vendors.ts';

export interface RawRequest extends PassthroughRequest {
  vendor: OpenAIVendor;
  credential: Credential;
  query?: Record<string, string | undefined>;
  /** Azure classic endpoints address the deployment (the model) in the path. */
  deployment?: string;
}

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

/** One upstream call; only a call that got no answer at all throws (UpstreamTransportError). */
export async function sendRaw(r: RawRequest): Promise<UpstreamAnswer> {
  const headers: Record<string, string> = { ...authHeaders(r.vendor, r.credential), ...r.headers };
  let url: string;
  try {
    url = rawUrl(r);
  } catch (err) {
    // An address that cannot be built (an azure credential without its base URL) has always been
    // reported as an unreachable upstream on these endpoints, not as a gateway fault.
    throw new UpstreamTransportError(transportError(err, r.signal));
  }
  return sendStreamed({
    lane: 'passthrough',
    method: r.method,
    url,
    headers,
    body: r.body ?? null,
    signal: r.signal,
  });
}

/** The Responses API of one OpenAI-wire vendor, as the registry hands it out. */
export function openaiResponsesApi(vendor: OpenAIVendor): ResponsesApi {
  return {
    send: (credential, req) => sendRaw({ ...req, vendor, credential }),
    usage: mapResponsesUsage,
  };
}

/** Images and audio of one OpenAI-wire vendor; Azure addresses them by deployment, its model name. */
export function openaiMediaApi(vendor: OpenAIVendor): MediaApi {
  return {
    send: (credential, model, operation, body, contentType, signal) =>
      sendRaw({
        vendor,
        credential,
        method: 'POST',
        path: operation,
        deployment: vendor === 'azure-openai' ? model : undefined,
        body,
        headers: { 'content-type': contentType },
        signal,
      }),
  };
}
