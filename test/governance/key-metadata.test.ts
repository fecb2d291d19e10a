// API key metadata in analytics and budgets (issue 33): a call's log row carries its key's metadata,
// `group_by=key_metadata:<name>` splits the report by it, and a budget scoped to key metadata
// `name=value` counts the calls of the keys carrying that pair, both at admission and when rebuilt
// from the log. A caller cannot pass for another key's metadata with a tag under the reserved name.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { dialects } from '../helpers/dialects.ts';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';

type Json = Record<string, unknown>;
type Point = { group: string | null; requests: number; cost_usd: number };

for (const d of await dialects()) {
  describe(`key metadata in analytics and budgets (${d.name})`, { skip: d.skip }, () => {
    let env: ProxyEnv;
    const keys: Record<string, { id: string; key: string }> = {};
    const start = new Date(Date.now() - 3_600_000).toISOString();

    async function makeKey(name: string, metadata: Record<string, string> | null) {
      const r = await api(env.gw, 'POST', '/manage/v1/api-keys', { name, metadata });
      assert.equal(r.status, 201, JSON.stringify(r.json));
      keys[name] = { id: (r.json as Json).id as string, key: (r.json as Json).key as string };
    }
    async function chat(name: string, headers: Record<string, string> = {}) {
      const openai = new OpenAI({ apiKey: keys[name]?.key, baseURL: `${env.gw.url}/v1`, maxRetries: 0 });
      await openai.chat.completions.create(
        { model: VENDOR_MODELS.openai as string, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
        { headers },
      );
    }
    async function budget(value: string): Promise<Json> {
      const r = await api(env.gw, 'POST', '/manage/v1/budgets', {
        name: `by ${value}`,
        scope: { type: 'key_metadata', value },
        period: 'monthly',
        limit_usd: 100,
      });
      assert.equal(r.status, 201, JSON.stringify(r.json));
      return r.json as Json;
    }
    const spent = (b: Json) => (b.status as { spent_usd: number }).spent_usd;
    async function rowsOf(name: string): Promise<Json[]> {
      const r = await api(env.gw, 'GET', '/manage/v1/logs?limit=100');
      assert.equal(r.status, 200, JSON.stringify(r.json));
      // Summaries leave the key out; the full records name it.
      const full = await Promise.all(
        (r.json as { data: Json[] }).data.map(
          async (row) => (await api(env.gw, 'GET', `/manage/v1/logs/${row.id}`)).json as Json,
        ),
      );
      return full.filter((row) => row.api_key_id === keys[name]?.id);
    }
    const costOf = async (name: string) => (await rowsOf(name)).reduce((t, row) => t + Number(row.cost_usd), 0);
    // Budget figures are rounded to the micro-dollar; the log's sum is rounded the same way.
    const close = (budgetUsd: number, logUsd: number) => Math.abs(budgetUsd - Math.round(logUsd * 1e6) / 1e6) < 1e-9;

    before(async () => {
      env = await startProxyEnv({ postgres: d.name === 'postgres' });
      await makeKey('search', { team: 'search', tier: 'gold' });
      await makeKey('ads', { team: 'ads' });
      await makeKey('plain', null);
      await chat('search');
      await chat('search');
      await chat('ads');
      await chat('plain');
      // A plain key claiming a team through a tag under the reserved name is not counted as that team.
      await chat('plain', { 'x-svc-user-tags': 'key_metadata:team=search' });
      await env.gw.app.svc.logs.flush();
    });
    after(async () => env?.close());

    test('the log row shows the key metadata, and no tag under the reserved name', async () => {
      const rows = await rowsOf('search');
      assert.equal(rows.length, 2);
      for (const row of rows)
        assert.deepEqual(row.tags, { 'key_metadata:team': 'search', 'key_metadata:tier': 'gold' });
      const plain = await rowsOf('plain');
      assert.equal(plain.length, 2);
      for (const row of plain) assert.deepEqual(row.tags ?? {}, {});
    });

    test('group_by=key_metadata:<name> splits the report by the pair', async () => {
      const q = new URLSearchParams({ start, end: new Date(Date.now() + 60_000).toISOString() });
      q.set('group_by', 'key_metadata:team');
      const r = await api(env.gw, 'GET', `/manage/v1/analytics/report?${q}`);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const report = r.json as { group_by: string; series: Point[] };
      assert.equal(report.group_by, 'key_metadata:team');
      const byGroup = new Map<string | null, number>();
      for (const p of report.series) byGroup.set(p.group, (byGroup.get(p.group) ?? 0) + p.requests);
      assert.deepEqual(Object.fromEntries(byGroup), { search: 2, ads: 1, null: 2 });
      const bad = await api(env.gw, 'GET', `/manage/v1/analytics/report?start=${start}&group_by=key_metadata:`);
      assert.equal(bad.status, 400);
    });

    test('a key_metadata budget counts the calls of the keys carrying the pair', async () => {
      // Created after the calls: its spend is rebuilt from the log.
      const search = await budget('team=search');
      const ads = await budget('team=ads');
      const none = await budget('team=nobody');
      assert.ok(spent(search) > 0, JSON.stringify(search));
      assert.ok(close(spent(search), await costOf('search')), `${spent(search)} vs ${await costOf('search')}`);
      assert.ok(close(spent(ads), await costOf('ads')));
      assert.equal(spent(none), 0);
      // At admission: one more call by the search key counts at once, and only there.
      await chat('search');
      await env.gw.app.svc.logs.flush();
      const after = (await api(env.gw, 'GET', `/manage/v1/budgets/${search.id}`)).json as Json;
      assert.equal((await rowsOf('search')).length, 3);
      assert.ok(close(spent(after), await costOf('search')), JSON.stringify(after));
      const adsAfter = (await api(env.gw, 'GET', `/manage/v1/budgets/${ads.id}`)).json as Json;
      assert.equal(spent(adsAfter), spent(ads));
      const bad = await api(env.gw, 'POST', '/manage/v1/budgets', {
        name: 'x',
        scope: { type: 'key_metadata', value: 'no-pair' },
        period: 'daily',
        limit_usd: 1,
      });
      assert.equal(bad.status, 400);
    });
  });
}
