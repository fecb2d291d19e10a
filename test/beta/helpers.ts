// Shared plumbing for the family-beta end-to-end tests: SDK client, raw calls, fake and log look-ups.
import Anthropic from '@anthropic-ai/sdk';
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import type { RecordedRequest } from '../../tools/fake-upstream/context.ts';
import type { ProxyEnv } from '../helpers/proxy-env.ts';

export function betaClient(env: ProxyEnv, headers: Record<string, string> = {}): Anthropic {
  return new Anthropic({
    apiKey: env.gw.adminKey,
    baseURL: `${env.gw.url}/beta`,
    maxRetries: 0,
    defaultHeaders: headers,
  });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown> | null;
}

/** A raw POST under /beta (the caller's key in x-api-key unless `headers` overrides auth). */
export async function betaPost(
  env: ProxyEnv,
  path: string,
  body: unknown,
  headers: Record<string, string> = { 'x-api-key': env.gw.adminKey },
): Promise<RawResponse> {
  const res = await fetch(`${env.gw.url}/beta${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Requests the fake received on a path containing `fragment`, oldest first. */
export function upstreamCalls(env: ProxyEnv, fragment: string): RecordedRequest[] {
  return env.fake.requests().filter((r) => r.path.includes(fragment));
}

/** The last request the fake received on a path containing `fragment`; throws when none. */
export function lastUpstream(env: ProxyEnv, fragment: string): RecordedRequest {
  const calls = upstreamCalls(env, fragment);
  const last = calls[calls.length - 1];
  if (!last) throw new Error(`fake saw no request on ${fragment}: ${env.fake.requests().map((r) => r.path)}`);
  return last;
}

export function bodyOf(r: RecordedRequest): Record<string, unknown> {
  return r.body as Record<string, unknown>;
}

/** The request-log row written for a gateway request id (flushes the writer first). */
export async function logRow(env: ProxyEnv, requestId: string): Promise<RequestLogRow> {
  await new Promise((r) => setImmediate(r));
  await env.gw.app.svc.logs.flush();
  const orgId = env.gw.app.svc.bootstrap.orgId;
  const row = await env.gw.app.svc.stores.logs.get(orgId, requestId);
  if (!row) throw new Error(`no log row for ${requestId}`);
  return row;
}

/** Where each translated vendor's chat call lands on the fake. */
export const UPSTREAM_PATH: Record<string, string> = {
  openai: '/openai/v1/chat/completions',
  together: '/together/v1/chat/completions',
  google: '/google/',
  bedrock: '/converse',
  anthropic: '/anthropic/v1/messages',
  'bedrock-anthropic': '/invoke',
};

/** A tiny valid PNG (1x1), base64. */
export const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};

export const TIME_TOOL = {
  name: 'get_time',
  description: 'Local time for a city',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};
