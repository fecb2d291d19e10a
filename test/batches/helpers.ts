// Shared by the batch tests: a project and its key, both SDKs pointed at the gateway, and polling.
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { api, type ProxyEnv } from '../helpers/proxy-env.ts';

export type Json = Record<string, unknown>;

export async function projectKey(env: ProxyEnv, name: string): Promise<{ id: string; key: string }> {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', { name });
  assert.equal(p.status, 201, JSON.stringify(p.json));
  const id = (p.json as Json).id as string;
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: `${name} key`, project_id: id });
  assert.equal(k.status, 201, JSON.stringify(k.json));
  return { id, key: (k.json as Json).key as string };
}

export function clients(env: ProxyEnv, key: string) {
  return {
    openai: new OpenAI({ apiKey: key, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: `${env.gw.url}/beta`, maxRetries: 0 }),
  };
}

/** Calls `read` until `done` says so (or fails after `timeoutMs`), returning the last value. */
export async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) assert.fail(`still not done after ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The org's log rows of one request type (newest first), through the management API. */
export async function logRows(env: ProxyEnv, requestType: string, projectId?: string): Promise<Json[]> {
  const q = new URLSearchParams({ request_type: requestType, limit: '100' });
  if (projectId !== undefined) q.set('project_id', projectId);
  const r = await api(env.gw, 'GET', `/manage/v1/logs?${q}`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return ((r.json as Json).data as Json[]) ?? [];
}

/** The decision trace of one log row (the batch row's trace names the batch, its mode and counts). */
export async function logTrace(env: ProxyEnv, id: string): Promise<Json> {
  const r = await api(env.gw, 'GET', `/manage/v1/logs/${id}`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return ((r.json as Json).decision_trace as Json) ?? {};
}

/**
 * Uploads JSONL lines as a batch input file: held by the gateway (`switchyard`, the default) or with
 * the provider named; null leaves the choice to the gateway (the org's openai credential).
 */
export async function uploadLines(env: ProxyEnv, key: string, lines: string[], provider: string | null = 'switchyard') {
  const file = await toFile(Buffer.from(`${lines.join('\n')}\n`), 'input.jsonl');
  const headers = provider === null ? {} : { 'x-svc-provider': provider };
  return clients(env, key).openai.files.create({ file, purpose: 'batch' }, { headers });
}

/** One alpha batch input line. */
export const batchLine = (customId: string, body: Json, url = '/v1/chat/completions') =>
  JSON.stringify({ custom_id: customId, method: 'POST', url, body });
