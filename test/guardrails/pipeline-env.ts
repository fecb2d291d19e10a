// Shared by the guardrail pipeline tests: a gateway on the fake upstream, one project and key per
// test (policies are scoped to the project, so tests do not see each other's), the two official
// SDKs pointed at the gateway, and what the fake upstream was sent.
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { api, type ProxyEnv } from '../helpers/proxy-env.ts';

export type Json = Record<string, unknown>;

export const EMAIL = 'jane.doe@example.com';
export const CARD = '4111 1111 1111 1111';
/** Sixteen digits that fail the Luhn check: not a card, never masked. */
export const NOT_A_CARD = '4111 1111 1111 1112';
export const PROMPT = `Mail ${EMAIL} about card ${CARD}, ref ${NOT_A_CARD}.`;

export const MODELS = { alpha: 'openai/gpt-4o-mini', beta: 'anthropic/claude-3-5-haiku-latest' } as const;
export type Family = keyof typeof MODELS;

export interface Scoped {
  projectId: string;
  key: string;
}

let n = 0;

/** A project (with `settings`) and a key for it, plus a policy on the project for each of `policies`. */
export async function guardedProject(env: ProxyEnv, policies: Json[], settings: Json = {}): Promise<Scoped> {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', { name: `guarded ${++n}`, settings });
  assert.equal(p.status, 201, JSON.stringify(p.json));
  const projectId = (p.json as Json).id as string;
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name: `key ${n}`, project_id: projectId });
  assert.equal(k.status, 201, JSON.stringify(k.json));
  for (const [i, policy] of policies.entries()) {
    const r = await api(env.gw, 'POST', '/manage/v1/guardrails', {
      name: `policy ${n}.${i}`,
      scope: { type: 'project', id: projectId },
      ...policy,
    });
    assert.equal(r.status, 201, JSON.stringify(r.json));
  }
  return { projectId, key: (k.json as Json).key as string };
}

export function openai(env: ProxyEnv, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${env.gw.url}/alpha/v1`, maxRetries: 0 });
}

export function anthropic(env: ProxyEnv, key: string): Anthropic {
  return new Anthropic({ apiKey: key, baseURL: `${env.gw.url}/beta`, maxRetries: 0 });
}

/** The answer text and request id of one call through the family's official SDK. */
export async function ask(
  env: ProxyEnv,
  key: string,
  family: Family,
  prompt: string,
  stream: boolean,
  model: string = MODELS[family],
): Promise<{ text: string; requestId: string | null; guardrails: string | null }> {
  const head = (r: Response) => ({
    requestId: r.headers.get('x-request-id'),
    guardrails: r.headers.get('x-svc-guardrails'),
  });
  const messages = [{ role: 'user' as const, content: prompt }];
  if (family === 'alpha') {
    const client = openai(env, key);
    if (stream) {
      const { data, response } = await client.chat.completions.create({ model, messages, stream: true }).withResponse();
      let text = '';
      for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
      return { text, ...head(response) };
    }
    const { data, response } = await client.chat.completions.create({ model, messages }).withResponse();
    return { text: data.choices[0]?.message.content ?? '', ...head(response) };
  }
  const client = anthropic(env, key);
  if (stream) {
    const { data, response } = await client.messages
      .create({ model, max_tokens: 200, messages, stream: true })
      .withResponse();
    let text = '';
    for await (const ev of data)
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
    return { text, ...head(response) };
  }
  const { data, response } = await client.messages.create({ model, max_tokens: 200, messages }).withResponse();
  return { text: textOf(data.content), ...head(response) };
}

function textOf(content: Array<{ type: string; text?: string }>): string {
  return content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
}

/** The body of the last chat request the fake upstream received, as text. */
export function lastUpstreamBody(env: ProxyEnv): string {
  const chats = env.fake.requests().filter((r) => /chat\/completions|\/messages$/.test(r.path));
  const last = chats.at(-1);
  assert.ok(last, 'the upstream received no chat request');
  return JSON.stringify(last.body);
}

export function upstreamChatCount(env: ProxyEnv): number {
  return env.fake.requests().filter((r) => /chat\/completions|\/messages$/.test(r.path)).length;
}

/** The request log row of a call (written just behind the answer). */
export async function logRow(env: ProxyEnv, requestId: string): Promise<Json> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await api(env.gw, 'GET', `/manage/v1/logs/${requestId}`);
    if (r.status === 200) return r.json as Json;
    if (Date.now() > deadline) assert.fail(`no log row for ${requestId}: ${r.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** A raw streamed call: the SSE text as the caller reads it. */
export async function rawStream(env: ProxyEnv, key: string, family: Family, prompt: string, model: string) {
  const path = family === 'alpha' ? '/alpha/v1/chat/completions' : '/beta/v1/messages';
  const res = await fetch(`${env.gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 200, stream: true, messages: [{ role: 'user', content: prompt }] }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The text deltas of an SSE answer in either family, concatenated. */
export function streamedText(sse: string): string {
  let out = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const j = JSON.parse(line.slice(6)) as Json;
    const choice = (j.choices as Json[] | undefined)?.[0];
    const alpha = (choice?.delta as Json | undefined)?.content;
    if (typeof alpha === 'string') out += alpha;
    const delta = j.delta as Json | undefined;
    if (j.type === 'content_block_delta' && typeof delta?.text === 'string') out += delta.text;
  }
  return out;
}
