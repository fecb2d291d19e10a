// Shared RequestLogStore suite: the same fixtures loaded into every dialect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import { newId } from '../../src/util/ids.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

function row(over: Partial<RequestLogRow>): RequestLogRow {
  return {
    id: newId('req'),
    requestType: 'chat',
    orgId: 'org_a',
    projectId: 'proj_a',
    apiKeyId: 'key_a',
    endUser: null,
    tags: null,
    traceId: null,
    conversationId: null,
    modelRequested: 'gpt-4o-mini',
    modelUsed: 'gpt-4o-mini',
    provider: 'openai',
    credentialId: 'prov_a',
    statusCode: 200,
    latencyMs: 100,
    ttfbMs: 40,
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: 0.000123,
    error: null,
    decisionTrace: { attempts: [{ model: 'gpt-4o-mini' }] },
    requestBody: '{"x":1}',
    responseBody: null,
    createdAt: new Date().toISOString(),
    ...over,
  };
}

for (const d of await dialects()) {
  describe(`RequestLogStore on ${d.name}`, { skip: d.skip }, () => {
    let t: TestDb;
    before(async () => {
      t = await d.open();
    });
    after(async () => t?.dispose());

    test('insertMany, get, filters, cursor and latency samples', async () => {
      const s = t.handle.stores.logs;
      const rows = [
        row({ latencyMs: 50, tags: { team: 'a', env: 'prod' }, endUser: 'u1' }),
        row({ statusCode: 500, latencyMs: 900, error: { message: 'boom' }, credentialId: 'prov_b' }),
        row({
          statusCode: 429,
          model: undefined,
          modelUsed: 'claude-x',
          provider: 'anthropic',
          tags: { team: 'b' },
        } as Partial<RequestLogRow>),
      ];
      const bulk = Array.from({ length: 250 }, () => row({ orgId: 'org_bulk', credentialId: 'prov_bulk' }));
      await s.insertMany([...rows, ...bulk]);
      await s.insertMany([rows[0] as RequestLogRow]); // duplicate ids are ignored, not an error

      const got = await s.get('org_a', rows[0]?.id ?? '');
      assert.deepEqual(got, rows[0]);
      assert.equal(await s.get('org_other', rows[0]?.id ?? ''), undefined);

      const all = await s.list({ orgId: 'org_a' }, { limit: 10 });
      assert.deepEqual(
        all.map((r) => r.id),
        rows.map((r) => r.id).reverse(),
      );
      assert.equal((await s.list({ orgId: 'org_a', statusClass: '5xx' }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_a', statusClass: '4xx' }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_a', model: 'claude-x' }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_a', provider: 'anthropic' }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_a', endUser: 'u1' }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_a', minLatencyMs: 800 }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_a', tags: { team: 'a' } }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_a', tags: { team: 'a', env: 'dev' } }, { limit: 10 })).length, 0);
      // Wildcard characters in a tag match literally, on both dialects.
      await s.insertMany([row({ orgId: 'org_like', credentialId: 'prov_like', tags: { team_x: '50%' } })]);
      assert.equal((await s.list({ orgId: 'org_like', tags: { team_x: '50%' } }, { limit: 10 })).length, 1);
      assert.equal((await s.list({ orgId: 'org_like', tags: { teamyx: '50%' } }, { limit: 10 })).length, 0);
      assert.equal((await s.list({ orgId: 'org_like', tags: { team_x: '5_%' } }, { limit: 10 })).length, 0);
      const page2 = await s.list({ orgId: 'org_a' }, { limit: 10, beforeId: all[0]?.id });
      assert.equal(page2.length, 2);
      assert.equal((await s.list({ orgId: 'org_bulk' }, { limit: 1000 })).length, 250);

      const samples = await s.latencySamples(['prov_a', 'prov_b'], new Date(Date.now() - 60_000).toISOString());
      assert.equal(samples.length, 3);
      assert.deepEqual(
        samples.map((x) => x.latencyMs).sort((a, b) => a - b),
        [50, 100, 900],
      );
      assert.deepEqual(await s.latencySamples([], '2000-01-01'), []);
    });
  });
}
