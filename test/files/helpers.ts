// Shared by the files end-to-end tests: the official SDK pointed at the gateway, projects with their
// own keys, raw calls for exact bodies, and the log row of a call.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Gateway } from '../helpers/gateway.ts';

export type Json = Record<string, unknown>;

/** The SDK as a user configures it: only the base address changes. No retries, so every call is one call. */
export function sdk(gw: Gateway, key = gw.adminKey, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${gw.url}/alpha/v1`, maxRetries: 0, defaultHeaders: headers });
}

export async function manage(gw: Gateway, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gw.adminKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Json;
}

/** A new project and a key scoped to it. */
export async function project(gw: Gateway, name: string): Promise<{ id: string; key: string }> {
  const p = await manage(gw, 'POST', '/manage/v1/projects', { name });
  const k = await manage(gw, 'POST', '/manage/v1/api-keys', { name: `${name} key`, project_id: p.id });
  return { id: p.id as string, key: k.key as string };
}

export interface Raw {
  status: number;
  headers: Headers;
  text: string;
  json: Json | undefined;
  requestId: string | null;
}

/** A call with fetch, for exact status, headers and bodies. */
export async function raw(
  gw: Gateway,
  method: string,
  path: string,
  opts: { key?: string | null; body?: FormData | string; headers?: Record<string, string> } = {},
): Promise<Raw> {
  const key = opts.key === undefined ? gw.adminKey : opts.key;
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...opts.headers },
    body: opts.body,
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, requestId: res.headers.get('x-svc-request-id') };
}

/** A multipart upload body as a browser or SDK builds it. */
export function form(
  fields: Record<string, string>,
  file?: { data: Uint8Array; name: string; type?: string },
): FormData {
  const fd = new FormData();
  if (file) fd.append('file', new Blob([file.data], { type: file.type ?? 'application/octet-stream' }), file.name);
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fd;
}

/** The request log row of a call; the gateway journals it before answering, the writer shortly after. */
export async function logRow(gw: Gateway, requestId: string | null): Promise<Json> {
  assert.ok(requestId, 'no request id');
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await raw(gw, 'GET', `/manage/v1/logs/${requestId}`);
    if (r.status === 200 && r.json) return r.json;
    if (Date.now() > deadline) assert.fail(`no log row for ${requestId}: ${r.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The alpha error body of an unknown (or unseen) file. */
export function notFoundBody(id: string): Json {
  return {
    error: { message: `No such File object: ${id}`, type: 'invalid_request_error', param: 'id', code: 'not_found' },
  };
}
