// Synthetic request-log rows for bench/analytics.ts: a plausible mix of projects, models,
// statuses, end users and tags, with log-normal latencies. Deterministic for a given seed.
import { ulid } from 'ulid';
import type { RequestLogRow } from '../src/store/request-logs.ts';

const MODELS = [
  ['gpt-4o-mini', 'openai'],
  ['gpt-4o', 'openai'],
  ['claude-3-5-haiku-latest', 'anthropic'],
  ['claude-sonnet-4-5', 'anthropic'],
  ['gemini-2.0-flash', 'google'],
  ['text-embedding-3-small', 'openai'],
] as const;
const PROJECTS = ['proj_search', 'proj_support', 'proj_batch'];
const STATUSES = [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 500, 400];
const TAGS: (Record<string, string> | null)[] = [
  null,
  null,
  { team: 'a', env: 'prod' },
  { team: 'b', env: 'prod' },
  { team: 'c', env: 'dev' },
];

export function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Roughly a log-normal around `median` ms. */
function latency(rnd: () => number, median: number): number {
  const normal = (rnd() + rnd() + rnd() + rnd() - 2) * 1.2;
  return Math.round(median * Math.exp(normal * 0.6) * 100) / 100;
}

/**
 * Row `i` of `total`, created in [fromMs, toMs) in order. `body` bytes of request and response
 * text when bodies are wanted (the ingestion run), none for the 1M-row seed.
 */
export function benchRow(
  rnd: () => number,
  i: number,
  total: number,
  fromMs: number,
  toMs: number,
  body = 0,
): RequestLogRow {
  const [model, provider] = MODELS[Math.floor(rnd() * MODELS.length)] as (typeof MODELS)[number];
  const createdAt = new Date(fromMs + Math.floor(((toMs - fromMs) * i) / total)).toISOString();
  const input = 50 + Math.floor(rnd() * 2000);
  const output = Math.floor(rnd() * 600);
  const text = body > 0 ? 'x'.repeat(body) : null;
  return {
    // A real request id (ULID of the creation time): the log list maps time ranges to id ranges.
    id: `req_${ulid(Date.parse(createdAt)).toLowerCase()}`,
    requestType: model.startsWith('text-embedding') ? 'embedding' : 'chat_completion',
    orgId: 'org_bench',
    projectId: PROJECTS[Math.floor(rnd() * PROJECTS.length)] ?? null,
    apiKeyId: 'key_bench',
    endUser: rnd() < 0.5 ? `user-${Math.floor(rnd() * 300)}` : null,
    tags: TAGS[Math.floor(rnd() * TAGS.length)] ?? null,
    traceId: null,
    conversationId: null,
    modelRequested: model,
    modelUsed: model,
    provider,
    credentialId: `prov_${provider}`,
    statusCode: STATUSES[Math.floor(rnd() * STATUSES.length)] ?? 200,
    latencyMs: latency(rnd, model.startsWith('text-embedding') ? 120 : 900),
    ttfbMs: null,
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: (input * 0.15 + output * 0.6) / 1e6,
    error: null,
    decisionTrace: null,
    requestBody: text,
    responseBody: text,
    createdAt,
    cache: null,
    replayOf: null,
    savedCostUsd: 0,
    cacheSimilarity: null,
    cacheShadowMatch: null,
  };
}
