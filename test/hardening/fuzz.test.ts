// Property-based fuzzing of every proxy and management route (fixed seed, bounded runs): whatever
// the body, path parameters or query, the gateway never answers 5xx except the documented upstream
// outcomes, and every error body has its path's documented shape.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/manage/operations.ts';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv({ config: { upstreamTimeoutMs: 2000, streamIdleTimeoutMs: 2000 } });
});
after(async () => {
  await env?.close();
});

const SEED = 20261123;
/** 502/504 are the documented answers to upstream failures (and 503 to no candidate). */
const UPSTREAM_STATUSES = new Set([502, 503, 504]);

interface Req {
  method: string;
  path: string;
  body?: string;
}

async function send(r: Req): Promise<{ status: number; text: string }> {
  const res = await fetch(`${env.gw.url}${r.path}`, {
    method: r.method,
    headers: {
      authorization: `Bearer ${env.gw.adminKey}`,
      ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: r.body,
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, text: await res.text() };
}

function checkShape(r: Req, res: { status: number; text: string }, proxy: boolean): void {
  const where = `${r.method} ${r.path} ${r.body?.slice(0, 300) ?? ''} -> ${res.status} ${res.text.slice(0, 300)}`;
  assert.ok(res.status < 500 || (proxy && UPSTREAM_STATUSES.has(res.status)), where);
  if (res.status < 400) return;
  const body = JSON.parse(res.text) as Record<string, unknown>;
  const error = body.error as Record<string, unknown> | undefined;
  assert.ok(error && typeof error.message === 'string' && typeof error.type === 'string', where);
  if (r.path.startsWith('/beta/')) assert.equal(body.type, 'error', where);
  else assert.ok('code' in error && 'param' in error, where);
}

const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('%ff', 'a'.repeat(101), '..', '%00', 'proj_x'));
const anyJson = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v));
const modelish = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    'openai/gpt-4o-mini',
    'anthropic/claude-3-5-haiku-latest',
    '@nope',
    'openai/gpt-4o-mini-fail-500',
    '@',
  ),
);
const messages = fc.array(
  fc.record({
    role: fc.constantFrom('user', 'assistant', 'system', 'tool', 'x'),
    content: fc.oneof(fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 2 })),
  }),
  { maxLength: 3 },
);
const chatBody = fc
  .record({
    model: modelish,
    messages,
    stream: fc.boolean(),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 50 }), fc.string({ maxLength: 5 })),
    extra: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  })
  .map(({ extra, ...rest }) => JSON.stringify({ ...extra, ...rest }));

test('proxy routes: no 5xx beyond upstream outcomes, every error in its shape', async () => {
  const paths = [
    '/alpha/v1/chat/completions',
    '/alpha/v1/embeddings',
    '/alpha/v1/dry-run',
    '/beta/v1/messages',
    '/beta/v1/messages/count_tokens',
  ];
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...paths), fc.oneof(chatBody, anyJson), async (path, body) => {
      const r = { method: 'POST', path, body };
      checkShape(r, await send(r), true);
    }),
    { seed: SEED, numRuns: 250 },
  );
});

test('management routes: no 5xx, every error in its shape', async () => {
  const ops = OPERATIONS.map((o) => ({ method: o.method, path: o.path }));
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ops),
      fc.array(segment, { minLength: 2, maxLength: 2 }),
      fc.option(anyJson, { nil: undefined }),
      fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
      async (op, [a, b], body, query) => {
        let i = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(i++ === 0 ? a : b));
        const q = query === undefined ? '' : `?limit=${encodeURIComponent(query)}&cursor=${encodeURIComponent(query)}`;
        const r = {
          method: op.method,
          path: `${path}${q}`,
          body: op.method === 'GET' || op.method === 'DELETE' ? undefined : body,
        };
        checkShape(r, await send(r), false);
      },
    ),
    { seed: SEED, numRuns: 300 },
  );
});
