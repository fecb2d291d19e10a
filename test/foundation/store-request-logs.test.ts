// Shared RequestLogStore suite: the same fixtures loaded into every dialect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ulid } from 'ulid';
import type { LogFilters, RequestLogRow } from '../../src/store/request-logs.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';
import { logRow } from '../helpers/log-row.ts';

function row(over: Partial<RequestLogRow>): RequestLogRow {
  return logRow({
    projectId: 'proj_a',
    apiKeyId: 'key_a',
    modelRequested: 'gpt-4o-mini',
    modelUsed: 'gpt-4o-mini',
    credentialId: 'prov_a',
    latencyMs: 100,
    ttfbMs: 40,
    inputTokens: 10,
    outputTokens: 5,
    costUsd: 0.000123,
    decisionTrace: { attempts: [{ model: 'gpt-4o-mini' }] },
    requestBody: '{"x":1}',
    ...over,
  });
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

    test('trace, conversation, request type, project and time-range filters', async () => {
      const s = t.handle.stores.logs;
      const day = 24 * 3600_000;
      const base = Date.parse('2026-10-01T00:00:00Z');
      const at = (ms: number, over: Partial<RequestLogRow> = {}) =>
        row({ id: `req_${ulid(ms).toLowerCase()}`, orgId: 'org_f', createdAt: new Date(ms).toISOString(), ...over });
      const rows = [
        at(base, { traceId: 'tr-1', requestType: 'chat_completion' }),
        at(base + day, { traceId: 'tr-1', conversationId: 'conv-9', requestType: 'message', projectId: 'proj_b' }),
        at(base + 2 * day, { requestType: 'embedding', cache: 'hit', replayOf: 'req_x' }),
      ];
      await s.insertMany(rows);
      const ids = async (f: Partial<LogFilters>) =>
        (await s.list({ orgId: 'org_f', ...f }, { limit: 10 })).map((r) => r.id);
      assert.deepEqual(await ids({ traceId: 'tr-1' }), [rows[1].id, rows[0].id]);
      assert.deepEqual(await ids({ conversationId: 'conv-9' }), [rows[1].id]);
      assert.deepEqual(await ids({ requestType: 'embedding' }), [rows[2].id]);
      assert.deepEqual(await ids({ projectId: 'proj_b' }), [rows[1].id]);
      // start inclusive, end exclusive.
      assert.deepEqual(
        await ids({ start: new Date(base + day).toISOString(), end: new Date(base + 2 * day).toISOString() }),
        [rows[1].id],
      );
      assert.deepEqual(await ids({ start: new Date(base + day + 1).toISOString() }), [rows[2].id]);
      const got = await s.get('org_f', rows[2].id);
      assert.equal(got?.cache, 'hit');
      assert.equal(got?.replayOf, 'req_x');
    });

    test('retention sweep deletes old rows and empties old bodies, in bounded batches', async () => {
      const s = t.handle.stores.logs;
      const now = Date.parse('2026-11-20T00:00:00Z');
      const day = 24 * 3600_000;
      const at = (ms: number) =>
        row({
          id: `req_${ulid(ms).toLowerCase()}`,
          orgId: 'org_r',
          createdAt: new Date(ms).toISOString(),
          responseBody: '{"y":2}',
        });
      const old = Array.from({ length: 5 }, (_, i) => at(now - 40 * day + i));
      const middle = Array.from({ length: 3 }, (_, i) => at(now - 10 * day + i));
      const fresh = [at(now - day)];
      await s.insertMany([...old, ...middle, ...fresh]);
      const cutoffs = {
        rowsBefore: new Date(now - 30 * day).toISOString(),
        bodiesBefore: new Date(now - 7 * day).toISOString(),
      };
      assert.deepEqual(await s.sweep(cutoffs, 2), { rows: 2, bodies: 2 });
      let more = { rows: 1, bodies: 1 };
      while (more.rows + more.bodies > 0) more = await s.sweep(cutoffs, 2);
      const left = await s.list({ orgId: 'org_r' }, { limit: 20 });
      assert.deepEqual(
        left.map((r) => r.id),
        [...fresh, ...middle.reverse()].map((r) => r.id),
      );
      for (const r of left.slice(1)) assert.equal(r.requestBody, null);
      assert.equal(left[0].requestBody, '{"x":1}', 'a fresh row keeps its bodies');
    });
  });
}
