// Shared by the cache's end-to-end tests: a project with the cache on and a key for it, plain calls
// in either family, and the log row of a call.
import assert from 'node:assert/strict';
import { api, type ProxyEnv } from '../helpers/proxy-env.ts';

export type Json = Record<string, unknown>;

export async function cachedProject(
  env: ProxyEnv,
  name: string,
  cache: Json = {},
): Promise<{ id: string; key: string }> {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', {
    name,
    settings: { semantic_cache: { enabled: true, ...cache } },
  });
  assert.equal(p.status, 201, JSON.stringify(p.json));
  const id = (p.json as Json).id as string;
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: `${name} key`, project_id: id });
  assert.equal(k.status, 201, JSON.stringify(k.json));
  return { id, key: (k.json as Json).key as string };
}

/** The request log row of a call; the gateway journals it before answering, the writer shortly after. */
export async function logRow(env: ProxyEnv, requestId: string | null): Promise<Json> {
  assert.ok(requestId, 'no request id');
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await api(env.gw, 'GET', `/manage/v1/logs/${requestId}`);
    if (r.status === 200) return r.json as Json;
    if (Date.now() > deadline) assert.fail(`no log row for ${requestId}: ${r.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Json | undefined;
}

/** A chat call in either family with raw fetch (streams come back as their SSE text). */
export async function chat(
  env: ProxyEnv,
  key: string,
  family: 'alpha' | 'beta',
  body: Json,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const path = family === 'alpha' ? '/alpha/v1/chat/completions' : '/beta/v1/messages';
  const res = await fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(family === 'beta' ? { 'anthropic-version': '2023-06-01' } : {}),
      ...headers,
    },
    body: JSON.stringify({ max_tokens: 100, ...body }),
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The text of a non-stream answer in either family. */
export function answerText(a: Answer): string {
  const j = a.json;
  if (!j) return '';
  if (Array.isArray(j.choices)) return ((j.choices[0] as Json).message as Json).content as string;
  if (Array.isArray(j.content)) return (j.content as Json[]).map((b) => (b.type === 'text' ? b.text : '')).join('');
  return '';
}

/** The project's cache stats (GET /manage/v1/projects/{id}/cache). */
export async function cacheStats(env: ProxyEnv, projectId: string): Promise<Json> {
  const r = await api(env.gw, 'GET', `/manage/v1/projects/${projectId}/cache`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json as Json;
}

/**
 * Stats once `done` holds: entries are written to the store behind the answer and log rows shortly
 * after it, so what the stats count lags the calls a little. Returns the last read at the deadline,
 * for the caller's assertions to show what was there instead.
 */
export async function waitForCacheStats(
  env: ProxyEnv,
  projectId: string,
  done: (s: Json) => boolean,
  timeoutMs = 5000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await cacheStats(env, projectId);
    if (done(s) || Date.now() > deadline) return s;
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * Chat calls the fake upstream has received so far (both chat wires), to tell a served hit from a
 * live call. The fake keeps its last 2000 requests: a difference is only meaningful below that.
 */
export function upstreamChats(env: ProxyEnv): number {
  return env.fake.requests().filter((r) => r.method === 'POST' && /\/(chat\/completions|messages)$/.test(r.path))
    .length;
}

/**
 * Starts an alpha stream, reads until the first piece of answer text has arrived, then hangs up. The
 * headers are in by then, so the caller still sees what the gateway decided (x-svc-cache).
 */
export async function streamThenAbort(
  env: ProxyEnv,
  key: string,
  body: Json,
  headers: Record<string, string> = {},
): Promise<{ headers: Headers; requestId: string | null; received: string }> {
  const ac = new AbortController();
  const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ max_tokens: 100, ...body, stream: true }),
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.ok(res.body, 'a stream has a body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let received = '';
  while (!received.includes('Echo')) {
    const { value, done } = await reader.read();
    if (done) break;
    received += decoder.decode(value, { stream: true });
  }
  ac.abort();
  await reader.cancel().catch(() => {});
  return { headers: res.headers, requestId: res.headers.get('x-svc-request-id'), received };
}
