// The semantic cache's behaviour end to end on one gateway and the fake upstream (which answers
// `Echo: <last user text>`, so whether an answer was served from the cache shows in its text): which
// prompts hit, which calls skip or bypass the cache, what is never stored, isolation between
// projects and end users, expiry, eviction, purge, settings validation, metrics and shadow mode.
// Every test has its own project, so no entry of one test can answer another's call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { parseExposition, sampleSum } from '../metrics/exposition.ts';
import {
  type Answer,
  answerText,
  cachedProject,
  chat,
  type Json,
  logRow,
  streamThenAbort,
  upstreamChats,
  waitForCacheStats,
} from './helpers.ts';

let env: ProxyEnv;

before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env.close();
});

const MODEL = 'openai/gpt-4o-mini';

const ask = (content: string, extra: Json = {}, model = MODEL): Json => ({
  model,
  messages: [{ role: 'user', content }],
  ...extra,
});

const requestId = (a: Answer | { headers: Headers }): string | null => a.headers.get('x-svc-request-id');

function similarityOf(a: Answer): number {
  const raw = a.headers.get('x-svc-cache-similarity');
  assert.ok(raw !== null, 'a hit carries x-svc-cache-similarity');
  return Number(raw);
}

/** A call that must have been answered by the upstream (header MISS, one more upstream request). */
async function live(key: string, body: Json, headers: Record<string, string> = {}, family: 'alpha' | 'beta' = 'alpha') {
  const before = upstreamChats(env);
  const a = await chat(env, key, family, body, headers);
  assert.equal(a.status, 200, a.text);
  assert.equal(a.headers.get('x-svc-cache'), 'MISS', a.text);
  assert.equal(upstreamChats(env), before + 1, 'the upstream answered');
  return a;
}

/** A call that must have been served from the cache (header HIT, no upstream request). */
async function hit(key: string, body: Json, headers: Record<string, string> = {}, family: 'alpha' | 'beta' = 'alpha') {
  const before = upstreamChats(env);
  const a = await chat(env, key, family, body, headers);
  assert.equal(a.status, 200, a.text);
  assert.equal(a.headers.get('x-svc-cache'), 'HIT', a.text);
  assert.equal(upstreamChats(env), before, 'the upstream was not called');
  return a;
}

/** The `cache` member of the call's decision trace. */
async function cacheTrace(id: string | null): Promise<unknown> {
  await logRow(env, id);
  const r = await api(env.gw, 'GET', `/manage/v1/logs/${id}/trace`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const trace = (r.json as Json).decision_trace as Json | null;
  return trace?.cache;
}

describe('semantic cache behaviour', () => {
  test('case, punctuation and one-letter variants hit at threshold 0.9 with the local embedder; an unrelated prompt misses', async () => {
    const p = await cachedProject(env, 'near-variants', { mode: 'semantic', similarity_threshold: 0.9 });
    const first = await live(p.key, ask('What is the capital of France?'));
    assert.equal(answerText(first), 'Echo: What is the capital of France?');

    // The local embedder folds case and punctuation away, so this variant's cosine is 1 (or a float
    // rounding below it): what matters is that a different request is served the stored answer.
    const variant = await hit(p.key, ask('what is the capital of france'));
    const sim = similarityOf(variant);
    assert.ok(sim >= 0.9 && sim <= 1, `similarity ${sim}`);
    assert.equal(answerText(variant), answerText(first));
    assert.match(variant.headers.get('x-svc-cache-age') ?? '', /^\d+$/);
    const row = await logRow(env, requestId(variant));
    assert.equal(row.cache, 'hit');
    assert.equal(row.cost_usd, 0);
    assert.ok((row.cache_similarity as number) >= 0.9, JSON.stringify(row));

    // A misspelt word changes the n-grams: a semantic neighbour strictly below 1, still above 0.9.
    const planet = await live(p.key, ask('Name the largest planet in the solar system'));
    const typo = await hit(p.key, ask('Name the largest planet in the solar sistem'));
    assert.match(typo.headers.get('x-svc-cache-similarity') ?? '', /^0\.\d{4}$/);
    const typoSim = similarityOf(typo);
    assert.ok(typoSim >= 0.9 && typoSim < 1, `similarity ${typoSim}`);
    assert.equal(answerText(typo), answerText(planet));
    const typoRow = await logRow(env, requestId(typo));
    assert.ok(Math.abs((typoRow.cache_similarity as number) - typoSim) < 0.0001, JSON.stringify(typoRow));

    const unrelated = await live(p.key, ask('How do I bake sourdough bread?'));
    assert.equal(answerText(unrelated), 'Echo: How do I bake sourdough bread?');
    assert.equal((await logRow(env, requestId(unrelated))).cache, 'miss');
  });

  test('a semantic-tier hit is reported as semantic even when its cosine rounds to 1', async () => {
    const p = await cachedProject(env, 'tier-label', { mode: 'semantic', similarity_threshold: 0.9 });
    await live(p.key, ask('What is the capital of France?'));
    // Another exact key (case and punctuation differ), found by the nearest-neighbour search.
    const variant = await hit(p.key, ask('what is the capital of france'));
    assert.notEqual(variant.headers.get('x-svc-cache-similarity'), '1.0', "'1.0' is the exact tier's");
    const trace = (await cacheTrace(requestId(variant))) as Json | undefined;
    assert.equal(trace?.hit, 'semantic', JSON.stringify(trace));
    assert.ok((trace?.similarity as number) >= 0.9, JSON.stringify(trace));
  });

  test('a temperature above max_temperature (default 0.7) skips the cache, and says why in the trace', async () => {
    const p = await cachedProject(env, 'hot');
    const body = ask('Write a haiku about the sea', { temperature: 1.2 });
    for (let i = 0; i < 2; i++) {
      const a = await live(p.key, body);
      const row = await logRow(env, requestId(a));
      assert.equal(row.cache, null, 'not consulted: neither hit nor miss');
      assert.equal(row.cache_similarity, null);
      assert.deepEqual(await cacheTrace(requestId(a)), { skipped: 'temperature_above_max' });
    }
    // The limit itself is allowed: the check is strictly above.
    const warm = ask('Write a haiku about the sea', { temperature: 0.7 });
    await live(p.key, warm);
    await hit(p.key, warm);
    const s = await waitForCacheStats(env, p.id, (x) => x.misses === 1 && x.hits === 1);
    assert.equal(s.misses, 1, 'the skipped calls are not counted as misses');
    assert.equal(s.hits, 1);
  });

  test('Cache-Control: no-store and "svc:cache": {"skip": true} bypass the cache: no read, no write', async () => {
    const p = await cachedProject(env, 'bypass');
    const stored = ask('Which ocean is the largest?');
    const first = await live(p.key, stored);
    await hit(p.key, stored);

    const bypasses: Array<{ name: string; body: Json; headers: Record<string, string> }> = [
      { name: 'no-store', body: {}, headers: { 'cache-control': 'no-store' } },
      { name: 'svc:cache skip', body: { 'svc:cache': { skip: true } }, headers: {} },
      { name: 'svc:cache skip under extra_body', body: { extra_body: { 'svc:cache': { skip: true } } }, headers: {} },
    ];
    for (const b of bypasses) {
      const a = await live(p.key, { ...stored, ...b.body }, b.headers);
      assert.equal(answerText(a), answerText(first), b.name);
      assert.equal(a.headers.get('x-svc-cache-similarity'), null, b.name);
      const row = await logRow(env, requestId(a));
      assert.equal(row.cache, null, b.name);
      assert.ok((row.cost_usd as number) > 0, `${b.name}: paid for upstream`);
      assert.deepEqual(await cacheTrace(requestId(a)), { skipped: 'bypassed' }, b.name);
    }
    // Through the beta wire too.
    await live(p.key, { ...stored, 'svc:cache': { skip: true } }, {}, 'beta');
    await live(p.key, stored, { 'cache-control': 'no-cache, no-store' }, 'beta');
    // Bypassing did not remove the entry either.
    await hit(p.key, stored);

    const fresh = ask('Which desert is the largest?');
    await live(p.key, fresh, { 'cache-control': 'no-store' });
    await live(p.key, { ...fresh, 'svc:cache': { skip: true } });
    // Had either bypassing call been stored, this one would hit.
    await live(p.key, fresh);
    await hit(p.key, fresh);
  });

  test('a stream the client aborts midway is not stored; a complete stream is', async () => {
    const p = await cachedProject(env, 'aborted-stream');
    // `midstream-stall` sends the first piece of text and then nothing, so the answer can only end by
    // the client hanging up: no race with the upstream finishing first.
    const stalled = ask('Tell me a long story', {}, `${MODEL}-midstream-stall`);
    const aborted = await streamThenAbort(env, p.key, stalled);
    assert.equal(aborted.headers.get('x-svc-cache'), 'MISS');
    assert.match(aborted.received, /Echo/);
    const row = await logRow(env, aborted.requestId);
    assert.equal(row.status_code, 499, JSON.stringify(row));
    assert.equal(row.cache, 'miss');

    const again = await streamThenAbort(env, p.key, stalled);
    assert.equal(again.headers.get('x-svc-cache'), 'MISS', 'nothing was stored by the aborted stream');
    assert.equal((await logRow(env, again.requestId)).status_code, 499);

    // The control: the same kind of call, read to its end, is stored and replayed (max_tokens leaves
    // room for the whole of the long answer, which would otherwise end on finish_reason length).
    const whole = ask('Tell me a long story', { stream: true, max_tokens: 1000 }, `${MODEL}-long`);
    const streamed = await live(p.key, whole);
    assert.match(streamed.text, /\[DONE\]/);
    const replay = await hit(p.key, whole);
    assert.match(replay.text, /\[DONE\]/);
  });

  test('a stream the upstream breaks (connection cut, error record) is not stored', async () => {
    const p = await cachedProject(env, 'broken-stream');
    for (const script of ['midstream-cut', 'midstream-error']) {
      const body = ask('Tell me about rivers', { stream: true }, `${MODEL}-${script}`);
      const first = await live(p.key, body);
      const row = await logRow(env, requestId(first));
      assert.notEqual(row.status_code, 200, `${script}: ${JSON.stringify(row)}`);
      assert.equal(row.cache, 'miss', script);
      await live(p.key, body);
    }
  });

  test('an answer cut by max_tokens (finish_reason length) is not stored', async () => {
    const p = await cachedProject(env, 'length-cut');
    // The fake counts 4 characters a token and cuts the echo at the limit with finish_reason length.
    const cut = ask('Describe the water cycle in detail', { max_tokens: 2 });
    const first = await live(p.key, cut);
    assert.equal(((first.json?.choices as Json[])[0] as Json).finish_reason, 'length');
    await live(p.key, cut);
    // Through the beta wire: stop_reason max_tokens, not stored either.
    const beta = await live(p.key, cut, {}, 'beta');
    assert.equal(beta.json?.stop_reason, 'max_tokens');
    await live(p.key, cut, {}, 'beta');
    // The control: the same prompt with room to finish is stored.
    const whole = ask('Describe the water cycle in detail', { max_tokens: 100 });
    await live(p.key, whole);
    await hit(p.key, whole);
  });

  test('entries are per project, and per end user with scope end_user; no end user means no cache', async () => {
    const a = await cachedProject(env, 'isolation-a');
    const b = await cachedProject(env, 'isolation-b');
    const q = ask('How many moons does Mars have?');
    await live(a.key, q);
    await hit(a.key, q);
    await live(b.key, q);

    const u = await cachedProject(env, 'per-user', { scope: 'end_user' });
    await live(u.key, q, { 'x-svc-user-id': 'ann' });
    // The same end user named through the body's `user` field.
    await hit(u.key, { ...q, user: 'ann' });
    await live(u.key, q, { 'x-svc-user-id': 'ben' });
    await hit(u.key, { ...q, user: 'ben' });

    for (let i = 0; i < 2; i++) {
      const anon = await live(u.key, q);
      assert.equal((await logRow(env, requestId(anon))).cache, null);
      assert.deepEqual(await cacheTrace(requestId(anon)), { skipped: 'no_end_user' });
    }
    // Near variants stay apart too: the semantic tier is partitioned by end user.
    const variant = ask('how many moons does mars have');
    await hit(u.key, variant, { 'x-svc-user-id': 'ann' });
    await live(u.key, variant, { 'x-svc-user-id': 'cy' });
  });

  test('entries expire after ttl_seconds (hits do not extend them)', async () => {
    const p = await cachedProject(env, 'ttl', { ttl_seconds: 1 });
    const q = ask('What is the boiling point of water?');
    const started = Date.now();
    await live(p.key, q);
    const second = await chat(env, p.key, 'alpha', q);
    // The entry was created after `started`, so a look-up that ended within the second found it live.
    if (Date.now() - started < 1000) assert.equal(second.headers.get('x-svc-cache'), 'HIT');

    // Repeated until the first MISS: hits only touch the entry, so it expires a second after its write.
    const deadline = Date.now() + 5000;
    let expired: Answer | undefined;
    while (expired === undefined) {
      assert.ok(Date.now() < deadline, 'the entry did not expire within 5 s');
      const a = await chat(env, p.key, 'alpha', q);
      assert.equal(a.status, 200, a.text);
      if (a.headers.get('x-svc-cache') === 'MISS') expired = a;
      else await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(Date.now() - started >= 1000, 'missed before the TTL was up');
    assert.equal(answerText(expired), 'Echo: What is the boiling point of water?');
    const row = await logRow(env, requestId(expired));
    assert.equal(row.cache, 'miss');
    assert.equal(row.cache_similarity, null);
  });

  test('settings are validated by the management API, merged by PATCH, and shown with defaults', async () => {
    const bad: Array<[string, Json]> = [
      ['similarity_threshold', { similarity_threshold: 1.5 }],
      ['mode', { mode: 'fuzzy' }],
      ['similarity_treshold', { similarity_treshold: 0.9 }],
      ['embedder', { embedder: 'not valid' }],
    ];
    const created = await api(env.gw, 'POST', '/manage/v1/projects', {
      name: 'settings',
      settings: { semantic_cache: { enabled: true, mode: 'exact' } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = (created.json as Json).id as string;
    const before = await api(env.gw, 'GET', `/manage/v1/projects/${id}`);

    for (const [field, cache] of bad) {
      const param = `settings.semantic_cache.${field}`;
      for (const [method, path, body] of [
        ['POST', '/manage/v1/projects', { name: `bad ${field}`, settings: { semantic_cache: cache } }],
        ['PATCH', `/manage/v1/projects/${id}`, { settings: { semantic_cache: cache } }],
      ] as const) {
        const r = await api(env.gw, method, path, body);
        assert.equal(r.status, 400, `${method} ${field}: ${JSON.stringify(r.json)}`);
        const err = (r.json as { error: { type: string; param: string; message: string } }).error;
        assert.equal(err.type, 'invalid_request_error');
        assert.equal(err.param, param, `${method} ${field}`);
        assert.ok(err.message.includes(param), `${method} ${field}: ${err.message}`);
      }
    }
    // The refused PATCHes changed nothing.
    const unchanged = await api(env.gw, 'GET', `/manage/v1/projects/${id}`);
    assert.deepEqual(unchanged.json, before.json);

    const patched = await api(env.gw, 'PATCH', `/manage/v1/projects/${id}`, {
      settings: { semantic_cache: { similarity_threshold: 0.8 } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const got = await api(env.gw, 'GET', `/manage/v1/projects/${id}`);
    assert.deepEqual(((got.json as Json).settings as Json).semantic_cache, {
      enabled: true,
      mode: 'exact',
      similarity_threshold: 0.8,
      ttl_seconds: 3600,
      max_temperature: 0.7,
      max_messages: 1,
      embedder: 'local',
      scope: 'project',
      max_entries: 10000,
    });

    const plain = await api(env.gw, 'POST', '/manage/v1/projects', { name: 'no cache settings' });
    assert.equal(plain.status, 201);
    assert.deepEqual(((plain.json as Json).settings as Json).semantic_cache, {
      enabled: false,
      mode: 'semantic',
      similarity_threshold: 0.95,
      ttl_seconds: 3600,
      max_temperature: 0.7,
      max_messages: 1,
      embedder: 'local',
      scope: 'project',
      max_entries: 10000,
    });
  });

  test('DELETE /projects/{id}/cache purges the project (only it); 404 for an unknown project', async () => {
    const p = await cachedProject(env, 'purge');
    const other = await cachedProject(env, 'purge-other');
    const q = ask('Who painted the Mona Lisa?');
    await live(p.key, q);
    await hit(p.key, q);
    await live(other.key, q);
    // Purged once written: a purge racing the store write is another matter.
    const written = await waitForCacheStats(env, p.id, (s) => s.entries === 1);
    assert.equal(written.entries, 1);
    assert.equal((await waitForCacheStats(env, other.id, (s) => s.entries === 1)).entries, 1);

    const r = await api(env.gw, 'DELETE', `/manage/v1/projects/${p.id}/cache`);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json, { object: 'cache.purge', project_id: p.id, deleted: 1 });
    const s = await api(env.gw, 'GET', `/manage/v1/projects/${p.id}/cache`);
    assert.equal((s.json as Json).entries, 0);
    await live(p.key, q);
    await hit(other.key, q);

    const missing = await api(env.gw, 'DELETE', '/manage/v1/projects/proj_doesnotexist/cache');
    assert.equal(missing.status, 404, JSON.stringify(missing.json));
    assert.equal((await api(env.gw, 'GET', '/manage/v1/projects/proj_doesnotexist/cache')).status, 404);
  });

  test('switchyard_cache_lookups_total counts hits and misses, not skipped calls', async () => {
    const scrape = async () => {
      const res = await fetch(`${env.gw.url}/metrics`, { headers: { authorization: `Bearer ${env.gw.adminKey}` } });
      assert.equal(res.status, 200);
      const m = await parseExposition(await res.text());
      return {
        hit: sampleSum(m, 'switchyard_cache_lookups_total', { result: 'hit' }),
        miss: sampleSum(m, 'switchyard_cache_lookups_total', { result: 'miss' }),
      };
    };
    const p = await cachedProject(env, 'metrics');
    const q = ask('What is the speed of light?');
    const before = await scrape();
    await live(p.key, q);
    const afterMiss = await scrape();
    assert.deepEqual(afterMiss, { hit: before.hit, miss: before.miss + 1 });
    await hit(p.key, q);
    await hit(p.key, q);
    await live(p.key, q, { 'cache-control': 'no-store' });
    await live(p.key, { ...q, temperature: 1.5 });
    assert.deepEqual(await scrape(), { hit: before.hit + 2, miss: before.miss + 1 });
  });

  test('max_entries evicts the least recently used entry', async () => {
    const p = await cachedProject(env, 'lru', { max_entries: 2 });
    const a = ask('What is the tallest mountain on Earth?');
    const b = ask('How do vaccines train the immune system?');
    const c = ask('Recommend a good book about chess openings');
    const d = ask('Why do cats purr when they are happy?');
    await live(p.key, a);
    await live(p.key, b);
    await live(p.key, c);
    // a was the oldest of three: gone. Storing it again evicts b.
    await live(p.key, a);
    // c is used, so a is now the least recently used: d evicts a, not c (the older write).
    await hit(p.key, c);
    await live(p.key, d);
    await hit(p.key, c);
    await live(p.key, a);
    const s = await waitForCacheStats(env, p.id, (x) => x.entries === 2);
    assert.equal(s.entries, 2, JSON.stringify(s));
  });

  test('shadow mode answers from the upstream and records would-be hits, matched or not', async () => {
    const p = await cachedProject(env, 'shadow', { mode: 'shadow', similarity_threshold: 0.95 });
    const first = await live(p.key, ask('What is the capital of France?'));
    const firstRow = await logRow(env, requestId(first));
    assert.equal(firstRow.cache, 'miss');
    assert.equal(firstRow.cache_similarity, null);
    assert.equal(firstRow.cache_shadow_match, null);

    // Would hit at 1 (case and punctuation fold away); the fresh echo differs from the stored one
    // only in case and trailing punctuation, which sameAnswer ignores: a match.
    const variant = await live(p.key, ask('what is the capital of france'));
    assert.equal(answerText(variant), 'Echo: what is the capital of france', 'a fresh answer, not the stored one');
    assert.equal(variant.headers.get('x-svc-cache-similarity'), null);
    const variantRow = await logRow(env, requestId(variant));
    assert.equal(variantRow.cache, 'miss');
    assert.equal(variantRow.cache_shadow_match, true);
    assert.ok((variantRow.cache_similarity as number) > 0.9999, JSON.stringify(variantRow));
    assert.equal(variantRow.saved_cost_usd, 0);

    // A typo: about 0.84, below the threshold but above shadow's 0.8 floor; the echo differs: no match.
    const typo = await live(p.key, ask('What is the capital of Frence?'));
    const typoRow = await logRow(env, requestId(typo));
    assert.equal(typoRow.cache_shadow_match, false);
    const typoSim = typoRow.cache_similarity as number;
    assert.ok(typoSim >= 0.8 && typoSim < 0.85, `similarity ${typoSim}`);

    // Below the floor: not a would-be hit at all.
    const unrelated = await live(p.key, ask('How do I bake sourdough bread?'));
    const unrelatedRow = await logRow(env, requestId(unrelated));
    assert.equal(unrelatedRow.cache_similarity, null);
    assert.equal(unrelatedRow.cache_shadow_match, null);

    const s = await waitForCacheStats(env, p.id, (x) => x.misses === 4);
    assert.equal(s.hits, 0);
    assert.equal(s.misses, 4);
    const shadow = s.shadow as { bands: Json[]; by_threshold: Json[] };
    const band = (min: number) => shadow.bands.find((b) => b.min === min);
    assert.deepEqual(band(0.8), { min: 0.8, max: 0.84, would_hit: 1, matched: 0, false_hit_rate: 1 });
    assert.deepEqual(band(1), { min: 1, max: 1, would_hit: 1, matched: 1, false_hit_rate: 0 });
    assert.deepEqual(
      shadow.by_threshold.map((t) => [t.threshold, t.would_hit, t.matched, t.false_hit_rate]),
      [
        [0.8, 2, 1, 0.5],
        [0.85, 1, 1, 0],
        [0.9, 1, 1, 0],
        [0.95, 1, 1, 0],
        [0.98, 1, 1, 0],
        [1, 1, 1, 0],
      ],
    );
  });
});
