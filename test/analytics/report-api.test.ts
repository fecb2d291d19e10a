// GET /manage/v1/analytics/report over HTTP and as the MCP tool get_analytics_report, on a live
// gateway per dialect: the answer's shape, 400s naming the parameter, the request_type parameter,
// project-key isolation, and rollups that outlive the raw rows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Report } from '../../src/logs/analytics-report.ts';
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import { dialects } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { assertMatchesExact, type ExactQuery, T0, variedRows } from './fixtures.ts';

const START = new Date(T0 - 86_400_000).toISOString();
const END = new Date(T0 + 2 * 86_400_000).toISOString();

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

for (const d of await dialects()) {
  describe(`analytics report API on ${d.name}`, { skip: d.skip }, () => {
    let gw: Gateway;
    let orgId: string;
    let projectA: string;
    let projectB: string;
    let projectKey: string;
    let rows: RequestLogRow[];
    const get = (query: string, key?: string) =>
      call(gw, 'GET', `/manage/v1/analytics/report?${query}`, undefined, key ? { authorization: `Bearer ${key}` } : {});

    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres' });
      orgId = gw.app.svc.bootstrap.orgId;
      projectA = ((await call(gw, 'POST', '/manage/v1/projects', { name: 'Alpha' })).body as { id: string }).id;
      projectB = ((await call(gw, 'POST', '/manage/v1/projects', { name: 'Beta' })).body as { id: string }).id;
      const key = await call(gw, 'POST', '/manage/v1/api-keys', { project_id: projectA });
      projectKey = (key.body as { key: string }).key;
      const ids: Record<string, string> = { proj_1: projectA, proj_2: projectB };
      rows = variedRows(1500, 3).map((r) => ({
        ...r,
        orgId: r.orgId === 'org_a' ? orgId : r.orgId,
        projectId: r.projectId === null ? null : (ids[r.projectId] ?? null),
      }));
      await gw.app.svc.stores.logs.insertMany(rows);
    });
    after(async () => gw?.close());

    test('grouped by model, with the previous period for comparison', async () => {
      const res = await get(`start=${START}&end=${END}&granularity=hour&group_by=model&include_comparison=true`);
      assert.equal(res.status, 200, res.text);
      const r = res.body as Report;
      assert.equal(r.group_by, 'model');
      assert.ok(r.series.every((p) => 'group' in p && typeof p.p95_latency_ms === 'number'));
      const q = { orgId, start: Date.parse(START), end: Date.parse(END), granularity: 'hour' as const };
      assertMatchesExact(r, rows, { ...q, groupBy: { kind: 'model' }, tags: null }, 'http');
      assert.ok(r.comparison);
      assert.equal(r.comparison.end, START);
      const tagged = (await get(`start=${START}&end=${END}&granularity=day&tags=${encodeURIComponent('{"team":"a"}')}`))
        .body as Report;
      assertMatchesExact(tagged, rows, { ...q, granularity: 'day', groupBy: null, tags: { team: 'a' } }, 'tags');
    });

    test('defaults: the last 24 hours in hourly buckets', async () => {
      const res = await get('');
      assert.equal(res.status, 200, res.text);
      const r = res.body as Report;
      assert.equal(r.granularity, 'hour');
      assert.ok(r.series.length === 24 || r.series.length === 25, String(r.series.length));
      assert.ok(r.series.every((p) => !('group' in p)));
    });

    test('bad parameters are 400s naming the parameter', async () => {
      const cases: [string, string][] = [
        [`start=${START}&end=${END}&group_by=color`, 'group_by'],
        [`start=${START}&end=${END}&group_by=tag:`, 'group_by'],
        [`start=${END}&end=${START}`, 'end'],
        [`start=${START}&end=${START}`, 'end'],
        ['start=2020-01-01T00:00:00Z&end=2025-01-01T00:00:00Z&granularity=hour', 'granularity'],
        ['start=1990-01-01&end=2025-01-01&granularity=day', 'start'],
        [`start=${START}&end=${END}&tags=${encodeURIComponent('{team:a}')}`, 'tags'],
        [`start=${START}&end=${END}&tags=${encodeURIComponent('["a"]')}`, 'tags'],
        [`start=${START}&end=${END}&tags=${encodeURIComponent('{"n":1}')}`, 'tags'],
        ['start=yesterday', 'start'],
        ['end=2025-13-01T00:00:00Z', 'end'],
        [`start=${START}&end=${END}&request_type=batch%20retrieve`, 'request_type'],
        [`start=${START}&end=${END}&request_type=chat_completion,,message`, 'request_type'],
        [`start=${START}&end=${END}&request_type=Batch_Retrieve`, 'request_type'],
        [`start=${START}&end=${END}&granularity=week`, 'granularity'],
        [`start=${START}&end=${END}&include_comparison=maybe`, 'include_comparison'],
      ];
      for (const [query, param] of cases) {
        const res = await get(query);
        assert.equal(res.status, 400, `${query}: ${res.text}`);
        const { error } = res.body as ErrorBody;
        assert.equal(error.param, param, query);
        assert.equal(error.type, 'invalid_request_error');
        assert.equal(error.code, 'invalid_parameter');
        assert.ok(error.message.includes(param), `${query}: ${error.message}`);
      }
      const unknown = await get(`start=${START}&end=${END}&project_id=proj_nope`);
      assert.equal(unknown.status, 404, unknown.text);
    });

    test('request_type: inference by default, a list of names, `inference` among them, or `all`', async () => {
      const q = { orgId, start: Date.parse(START), end: Date.parse(END), granularity: 'day' as const, tags: null };
      const cases: [string, ExactQuery['requestTypes']][] = [
        ['', undefined],
        ['&request_type=inference', undefined],
        ['&request_type=batch_retrieve', ['batch_retrieve']],
        ['&request_type=inference,%20file_list', ['inference', 'file_list']],
        ['&request_type=all', 'all'],
        ['&request_type=file_list,all', 'all'],
      ];
      for (const [param, requestTypes] of cases) {
        const res = await get(`start=${START}&end=${END}&granularity=day&group_by=request_type${param}`);
        assert.equal(res.status, 200, res.text);
        const r = res.body as Report;
        assertMatchesExact(r, rows, { ...q, groupBy: { kind: 'request_type' }, requestTypes }, `request_type ${param}`);
        assert.ok(r.totals.requests > 0, param);
      }
      const polls = (await get(`start=${START}&end=${END}&request_type=batch_retrieve`)).body as Report;
      assert.deepEqual(polls.request_types, ['batch_retrieve']);
      const every = (await get(`start=${START}&end=${END}&request_type=all`)).body as Report;
      assert.equal(every.request_types, null);
    });

    test('a project-scoped key sees only its own project', async () => {
      const q = { orgId, start: Date.parse(START), end: Date.parse(END), granularity: 'day' as const, tags: null };
      const own = await get(`start=${START}&end=${END}&granularity=day&group_by=project`, projectKey);
      assert.equal(own.status, 200, own.text);
      const r = own.body as Report;
      assert.deepEqual([...new Set(r.series.map((p) => p.group))], [projectA]);
      assertMatchesExact(r, rows, { ...q, projectId: projectA, groupBy: { kind: 'project' } }, 'project key');
      const named = await get(`start=${START}&end=${END}&granularity=day&project_id=${projectA}`, projectKey);
      assert.equal((named.body as Report).totals.requests, r.totals.requests);
      const foreign = await get(`start=${START}&end=${END}&project_id=${projectB}`, projectKey);
      assert.equal(foreign.status, 403, foreign.text);
      assert.equal((foreign.body as ErrorBody).error.code, 'project_out_of_scope');
      const org = (await get(`start=${START}&end=${END}&granularity=day&group_by=project`)).body as Report;
      assert.ok(org.totals.requests > r.totals.requests);
    });

    test('the MCP tool get_analytics_report, through the official client', async () => {
      const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
      });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'get_analytics_report'));
        const res = await client.callTool({
          name: 'get_analytics_report',
          arguments: { start: START, end: END, granularity: 'day', group_by: 'provider', include_comparison: true },
        });
        assert.ok(!res.isError, JSON.stringify(res));
        const r = res.structuredContent as unknown as Report;
        const q = { orgId, start: Date.parse(START), end: Date.parse(END), granularity: 'day' as const, tags: null };
        assertMatchesExact(r, rows, { ...q, groupBy: { kind: 'provider' } }, 'mcp');
        assert.ok(r.comparison);
        const bad = await client.callTool({ name: 'get_analytics_report', arguments: { group_by: 'colour' } });
        assert.equal(bad.isError, true);
        assert.match(JSON.stringify(bad.content), /group_by/);
      } finally {
        await client.close();
      }
    });

    test('rollups outlive the raw rows', async () => {
      const query = `start=${START}&end=${END}&granularity=day&group_by=end_user`;
      const before = (await get(query)).body as Report;
      await gw.app.svc.db.deleteFrom('request_logs').execute();
      assert.deepEqual((await get(query)).body, before);
      assert.ok(before.totals.requests > 0);
    });
  });
}
