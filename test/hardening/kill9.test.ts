// kill -9 right after the last answer: every answered call still gets its log row, because each row
// is journaled synchronously before it is queued and the next start replays what was not committed.
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { dialects, dropSchema, randomSchema, TEST_PG_URL } from '../helpers/dialects.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/gateway-process.ts';

const CALLS = 600;
const CONCURRENCY = 24;

async function callMany(gw: GatewayProcess): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      next++;
      const res = await fetch(`${gw.url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await res.text();
      assert.equal(res.status, 200);
      ids.push(res.headers.get('x-svc-request-id') ?? '');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return ids;
}

for (const d of await dialects()) {
  describe(d.name, { skip: d.skip }, () => {
    test('every answered call has its log row after kill -9 and a restart', async () => {
      const fake = await startFakeUpstream({ port: 0 });
      let env: Record<string, string> = {};
      let schema: string | undefined;
      if (d.name === 'postgres') {
        schema = randomSchema();
        env = { SWITCHYARD_DATABASE_URL: TEST_PG_URL, SWITCHYARD_DATABASE_SCHEMA: schema };
      }
      const first = await spawnGateway(env);
      let second: GatewayProcess | undefined;
      try {
        assert.equal(await first.addOpenAi(fake.url), 201);
        const ids = await callMany(first);
        first.child.kill('SIGKILL');
        await first.exited;
        const journal = join(first.dataDir, 'journal');
        assert.ok(readdirSync(journal).length > 0, 'the killed process left its journal');

        second = await spawnGateway(env, { dataDir: first.dataDir });
        // Replay finishes before the gateway answers its first request.
        const stored = await storedIds(d.name, first.dataDir, schema);
        const missing = ids.filter((id) => !stored.has(id));
        assert.equal(missing.length, 0, `${missing.length} of ${ids.length} answered calls have no log row`);
        assert.equal(stored.size, ids.length, 'no row is stored twice or invented');
        assert.deepEqual(
          readdirSync(journal).filter((f) => !f.startsWith(`journal-${second?.child.pid}-`)),
          [],
          'replayed segments are deleted',
        );
      } finally {
        if (second) await second.stop();
        else rmSync(first.dataDir, { recursive: true, force: true });
        await fake.close();
        if (schema) await dropSchema(schema);
      }
    });
  });
}

async function storedIds(dialect: string, dataDir: string, schema: string | undefined): Promise<Set<string>> {
  if (dialect === 'sqlite') {
    const db = new SQLite(join(dataDir, 'switchyard.db'), { readonly: true });
    try {
      const rows = db.prepare("select id from request_logs where request_type = 'chat_completion'").all() as Array<{
        id: string;
      }>;
      return new Set(rows.map((r) => r.id));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    const r = await client.query<{ id: string }>(
      `select id from "${schema}".request_logs where request_type = 'chat_completion'`,
    );
    return new Set(r.rows.map((x) => x.id));
  } finally {
    await client.end();
  }
}
