// Cache entries outlive the process (SPEC "Semantic cache behavior"; entries are rebuilt from the
// store at start) on both dialects: an answer written before a restart is served after it, by the
// exact tier and, with its stored vector, by the semantic tier. On PostgreSQL a second connection can
// hold a store write of the gateway back (an uncommitted row with the same unique key), which shows
// what happens to entries whose write is still in flight when they are purged or evicted.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import pg from 'pg';
import { dialects, dropSchema, TEST_PG_URL } from '../helpers/dialects.ts';
import { startGateway } from '../helpers/gateway.ts';
import { api, type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { answerText, cachedProject, chat, type Json, logRow, waitForCacheStats } from './helpers.ts';

const MODEL = 'openai/gpt-4o-mini';
const ask = (content: string): Json => ({ model: MODEL, messages: [{ role: 'user', content }] });

/** A proxy env whose gateway can be stopped and started again on the same data dir / schema. */
interface Restartable {
  env: ProxyEnv;
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

async function restartable(postgres: boolean): Promise<Restartable> {
  const env = await startProxyEnv({ postgres });
  const { dataDir, pgSchema } = env.gw;
  let running = true;
  const self: Restartable = {
    env,
    async stop() {
      if (!running) return;
      running = false;
      await env.gw.close({ keepData: true });
    },
    async start() {
      // The provider credentials are in the store, and the fake upstream stays up: nothing to redo.
      env.gw = await startGateway({ dataDir, ...(pgSchema ? { postgres: true, pgSchema } : {}) });
      running = true;
    },
    async restart() {
      await self.stop();
      await self.start();
    },
    async dispose() {
      await self.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (pgSchema) await dropSchema(pgSchema);
      await env.fake.close();
    },
  };
  return self;
}

/**
 * Holds back the gateway's next store write of an entry with this (tenant, exact key): an
 * uncommitted row with the same unique key makes PostgreSQL's INSERT ... ON CONFLICT wait for this
 * transaction. The row names another project, so nothing of the real project sees or waits on it.
 */
async function holdWrite(schema: string, tenant: string, exactKey: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  await client.query('BEGIN');
  const now = Date.now();
  await client.query(
    `INSERT INTO "${schema}".cache_entries (id, project_id, tenant, partition_key, exact_key, model, embedder,
       vector, response, input_tokens, output_tokens, cost_usd, created_at, last_used_at, expires_at)
     VALUES ('ce_blocker', 'proj_blocker', $1, 'blocker', $2, 'blocker', NULL, NULL, 'null', 0, 0, 0, $3, $3, $4)`,
    [tenant, exactKey, now, now + 3_600_000],
  );
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

async function storedRows(schema: string, projectId: string): Promise<Array<{ tenant: string; exact_key: string }>> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    const r = await client.query<{ tenant: string; exact_key: string }>(
      `SELECT tenant, exact_key FROM "${schema}".cache_entries WHERE project_id = $1`,
      [projectId],
    );
    return r.rows;
  } finally {
    await client.end();
  }
}

/** The store key of `prompt`'s entry: written once through the gateway, read back, then purged. */
async function keyOf(env: ProxyEnv, schema: string, p: { id: string; key: string }, prompt: string) {
  const first = await chat(env, p.key, 'alpha', ask(prompt));
  assert.equal(first.headers.get('x-svc-cache'), 'MISS');
  assert.equal((await waitForCacheStats(env, p.id, (s) => s.entries === 1)).entries, 1);
  const [row] = await storedRows(schema, p.id);
  const purged = await api(env.gw, 'DELETE', `/manage/v1/projects/${p.id}/cache`);
  assert.deepEqual(purged.json, { object: 'cache.purge', project_id: p.id, deleted: 1 });
  return row;
}

const PG_ONLY = 'needs a second connection to hold a write back; a SQLite lock would stall the whole gateway';

for (const d of await dialects()) {
  describe(`semantic cache across a restart (${d.name})`, { skip: d.skip }, () => {
    test('an answer cached before a restart is served after it, through the other family, by both tiers', async () => {
      const r = await restartable(d.name === 'postgres');
      try {
        const p = await cachedProject(r.env, 'restart', { similarity_threshold: 0.9 });
        const prompt = 'Name the largest planet in the solar system';
        const written = await chat(r.env, p.key, 'alpha', ask(prompt));
        assert.equal(written.headers.get('x-svc-cache'), 'MISS');
        const paid = (await logRow(r.env, written.headers.get('x-svc-request-id'))).cost_usd as number;
        assert.ok(paid > 0);
        assert.equal((await waitForCacheStats(r.env, p.id, (s) => s.entries === 1)).entries, 1);

        await r.restart();

        const exact = await chat(r.env, p.key, 'beta', ask(prompt));
        assert.equal(exact.status, 200, exact.text);
        assert.equal(exact.headers.get('x-svc-cache'), 'HIT');
        assert.equal(exact.headers.get('x-svc-cache-similarity'), '1.0');
        assert.match(exact.headers.get('x-svc-cache-age') ?? '', /^\d+$/);
        assert.equal(answerText(exact), answerText(written));
        const row = await logRow(r.env, exact.headers.get('x-svc-request-id'));
        assert.equal(row.cache, 'hit');
        assert.equal(row.saved_cost_usd, paid, 'what the original call cost survives too');

        // The stored vector was loaded back: a near variant finds the entry by similarity.
        const near = await chat(r.env, p.key, 'beta', ask('Name the largest planet in the solar sistem'));
        assert.equal(near.headers.get('x-svc-cache'), 'HIT');
        const sim = Number(near.headers.get('x-svc-cache-similarity'));
        assert.ok(sim >= 0.9 && sim < 1, `similarity ${sim}`);
        assert.equal(answerText(near), answerText(written));

        const s = await waitForCacheStats(r.env, p.id, (x) => x.hits === 2);
        assert.equal(s.entries, 1);
        assert.equal(s.hits, 2);
        assert.equal(s.misses, 1);
      } finally {
        await r.dispose();
      }
    });

    test(
      'a purge while an entry is still being written leaves nothing to come back after a restart',
      {
        skip: d.name === 'sqlite' ? PG_ONLY : undefined,
      },
      async () => {
        const r = await restartable(true);
        const schema = r.env.gw.pgSchema;
        assert.ok(schema);
        try {
          const p = await cachedProject(r.env, 'purge-in-flight');
          const prompt = 'Who wrote War and Peace?';
          const key = await keyOf(r.env, schema, p, prompt);
          const hold = await holdWrite(schema, key.tenant, key.exact_key);
          let released = false;
          try {
            const again = await chat(r.env, p.key, 'alpha', ask(prompt));
            assert.equal(again.headers.get('x-svc-cache'), 'MISS');
            const purge = api(r.env.gw, 'DELETE', `/manage/v1/projects/${p.id}/cache`);
            // The purge waits for the write, which waits for this transaction: released after a
            // bounded wait, so the test also passes (and still checks the outcome) if the purge did not wait.
            const settled = await Promise.race([purge, new Promise((res) => setTimeout(res, 3000, 'waiting'))]);
            await hold.release();
            released = true;
            const done = settled === 'waiting' ? await purge : (settled as Awaited<typeof purge>);
            assert.equal(done.status, 200, JSON.stringify(done.json));
          } finally {
            if (!released) await hold.release();
          }
          // Closing waits for the cache's store writes.
          await r.restart();
          const after = await chat(r.env, p.key, 'alpha', ask(prompt));
          assert.equal(after.headers.get('x-svc-cache'), 'MISS', 'the purged answer is served again');
        } finally {
          await r.dispose();
        }
      },
    );

    test(
      'an entry evicted while it is still being written leaves no store row behind',
      {
        skip: d.name === 'sqlite' ? PG_ONLY : undefined,
      },
      async () => {
        const r = await restartable(true);
        const schema = r.env.gw.pgSchema;
        assert.ok(schema);
        try {
          const p = await cachedProject(r.env, 'evict-in-flight', { max_entries: 1 });
          const prompt = 'What is the capital of Australia?';
          const key = await keyOf(r.env, schema, p, prompt);
          const hold = await holdWrite(schema, key.tenant, key.exact_key);
          try {
            assert.equal((await chat(r.env, p.key, 'alpha', ask(prompt))).headers.get('x-svc-cache'), 'MISS');
            // Evicts the entry above (max_entries 1) before its write has landed.
            const other = await chat(r.env, p.key, 'alpha', ask('How do tides work?'));
            assert.equal(other.headers.get('x-svc-cache'), 'MISS');
          } finally {
            await hold.release();
          }
          // Closing waits for the cache's store writes; then the table says what is left.
          await r.stop();
          const rows = await storedRows(schema, p.id);
          assert.equal(rows.length, 1, `max_entries 1, stored: ${rows.length}`);
        } finally {
          await r.dispose();
        }
      },
    );
  });
}
