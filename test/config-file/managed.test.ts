// What the file owns shows as owned, and an apply is all or nothing (issue 36 item 4): every kind the
// file declares carries `managed_by: "config"` in REST and MCP views (others null); API writes to a
// file-owned alias or price answer 409; and a failure part way through an apply (injected into the
// budgets kind, after a provider, a project and a routing config were already written) leaves the
// store, the markers and the plan as before (the new project excepted: its slug cannot be reused),
// on SQLite and on PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { applyPlan, exportState, makePlan, readConfigFile, renderPlan } from '../../src/config-file/index.ts';
import { budgets } from '../../src/config-file/kinds-routing.ts';
import { listManaged } from '../../src/manage/config-managed.ts';
import { dialects } from '../helpers/dialects.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

type Json = Record<string, unknown>;
const dir = mkdtempSync(join(tmpdir(), 'sy-cac-managed-'));
process.env.MGD_OPENAI_KEY = 'sk-managed-env-secret-0123456789';

const fileText = (o: { weight: number; fallback: string; extra: boolean }) => `
version: 1
providers:
  - name: openai-main
    vendor: openai
    api_key: \${env:MGD_OPENAI_KEY}
    weight: ${o.weight}
projects:
  - slug: alpha-team
${o.extra ? '  - slug: beta-team\n' : ''}api_keys:
  - name: alpha-app
    project: alpha-team
    sha256: ${'ee'.repeat(32)}
routing_configs:
  - slug: main
    strategy: fallback
    config: { models: [openai/gpt-4o-mini, ${o.fallback}] }
budgets:
  - name: org-monthly
    scope: { type: org }
    period: monthly
    limit_usd: 100
${o.extra ? '  - name: beta-daily\n    scope: { type: project, project: beta-team }\n    period: daily\n    limit_usd: 5\n' : ''}webhooks:
  - url: https://hooks.example.com/managed
    event_types: [routing_config.updated]
guardrails:
  - name: no-zeus
    scope: { type: org }
    checks:
      - { type: regex, stage: input, action: block, patterns: ['zeus'] }
models:
  aliases: { fast: openai/gpt-4o-mini${o.extra ? ', smart: openai/gpt-4o' : ''} }
  prices:
    openai/gpt-4o-mini: { input: 0.1, output: 0.4 }
`;

for (const d of await dialects()) {
  describe(`file-owned resources on ${d.name}`, { skip: d.skip }, () => {
    let gw: Gateway;
    let org = '';
    const write = (name: string, text: string) => {
      const f = join(dir, `${d.name}-${name}`);
      writeFileSync(f, text);
      return f;
    };
    const base = () => write('base.yaml', fileText({ weight: 1, fallback: 'openai/gpt-4o', extra: false }));
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
      const res = await fetch(`${gw.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Json };
    };
    const list = async (path: string) => (await api('GET', path)).json.data as Json[];

    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres' });
      org = (await gw.app.svc.stores.orgKeys.firstOrg())?.id ?? '';
      await applyPlan(await makePlan(gw.app.svc, org, readConfigFile(base())));
    });
    after(async () => {
      await gw.close();
    });

    test('every kind the file declares reads managed_by "config" in REST; what the API made reads null', async () => {
      const made = await api('POST', '/manage/v1/projects', { name: 'by hand' });
      assert.equal(made.status, 201, JSON.stringify(made.json));
      assert.equal(made.json.managed_by, null);
      const owner = (items: Json[], field: string, value: string) => items.find((x) => x[field] === value)?.managed_by;
      assert.equal(owner(await list('/manage/v1/providers'), 'name', 'openai-main'), 'config');
      const projects = await list('/manage/v1/projects?limit=100');
      assert.equal(owner(projects, 'slug', 'alpha-team'), 'config');
      assert.equal(owner(projects, 'name', 'by hand'), null);
      const keys = await list('/manage/v1/api-keys?limit=100');
      assert.equal(owner(keys, 'name', 'alpha-app'), 'config');
      assert.ok(
        keys.some((k) => k.name !== 'alpha-app' && k.managed_by === null),
        'the bootstrap key is not the file’s',
      );
      assert.equal(owner(await list('/manage/v1/routing-configs'), 'slug', 'main'), 'config');
      assert.equal(owner(await list('/manage/v1/budgets'), 'name', 'org-monthly'), 'config');
      assert.equal(
        owner(await list('/manage/v1/webhooks/endpoints'), 'url', 'https://hooks.example.com/managed'),
        'config',
      );
      assert.equal(owner(await list('/manage/v1/guardrails'), 'name', 'no-zeus'), 'config');
      assert.equal(owner(await list('/manage/v1/model-aliases'), 'name', 'fast'), 'config');
      assert.equal(owner(await list('/manage/v1/model-prices'), 'model', 'openai/gpt-4o-mini'), 'config');
      const one = projects.find((p) => p.slug === 'alpha-team');
      assert.equal((await api('GET', `/manage/v1/projects/${one?.id}`)).json.managed_by, 'config');
    });

    test('MCP views carry the same field', async () => {
      const client = new Client({ name: 'managed-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
        }),
      );
      try {
        const res = await client.callTool({ name: 'list_routing_configs', arguments: {} });
        assert.notEqual(res.isError, true, JSON.stringify(res));
        const [first] = res.content as Array<{ text: string }>;
        const page = JSON.parse(first?.text ?? '{}') as { data: Json[] };
        assert.equal(page.data.find((c) => c.slug === 'main')?.managed_by, 'config');
      } finally {
        await client.close();
      }
    });

    test('API writes to a file-owned alias or price answer 409 managed_by_config; others still work', async () => {
      const alias = await api('POST', '/manage/v1/model-aliases', { name: 'fast', model: 'openai/gpt-4o' });
      assert.equal(alias.status, 409, JSON.stringify(alias.json));
      assert.equal((alias.json.error as Json).code, 'managed_by_config');
      assert.equal((await api('DELETE', '/manage/v1/model-aliases/fast')).status, 409);
      // Any spelling of the priced model is the same owned price.
      const price = await api('POST', '/manage/v1/model-prices', {
        model: 'openai/gpt-4o-mini-2024-07-18',
        input: 9,
        output: 9,
      });
      assert.equal(price.status, 409, JSON.stringify(price.json));
      const spelled = encodeURIComponent('openai/gpt-4o-mini-2024-07-18');
      assert.equal((await api('DELETE', `/manage/v1/model-prices/${spelled}`)).status, 409);
      const mine = await api('POST', '/manage/v1/model-aliases', { name: 'mine', model: 'openai/gpt-4o' });
      assert.equal(mine.status, 200, JSON.stringify(mine.json));
      assert.equal(mine.json.managed_by, null);
      assert.equal((await api('DELETE', '/manage/v1/model-aliases/mine')).status, 200);
    });

    test('a failure part way through an apply leaves everything as it was', async () => {
      const svc = gw.app.svc;
      const markers = async () =>
        (await listManaged(svc.db, org)).map((m) => `${m.resourceType}:${m.name}`).sort((a, b) => a.localeCompare(b));
      const before = { state: await exportState(svc, org), markers: await markers() };
      const next = write('next.yaml', fileText({ weight: 3, fallback: 'anthropic/claude-sonnet-4-5', extra: true }));
      const plan = await makePlan(svc, org, readConfigFile(next));
      // The provider, the project and the routing config come before the failing budget.
      const order = plan.changes.map((c) => `${c.action} ${c.kind.type} ${c.key}`);
      assert.deepEqual(order.slice(0, 4), [
        'update provider openai-main',
        'create project beta-team',
        'update routing_config main',
        'create budget beta-daily',
      ]);
      const create = budgets.create;
      budgets.create = async () => {
        throw new Error('injected failure');
      };
      try {
        await assert.rejects(applyPlan(plan), /budgets 'beta-daily' \(create\): injected failure.*rolled back/);
      } finally {
        budgets.create = create;
      }
      // Everything but the new project is as it was: a deleted project's slug is never reused, so
      // the project stays (empty, the file's) for the retry to adopt.
      const after = await exportState(svc, org);
      const projects = (after.config.projects ?? []).filter((p) => p.slug !== 'beta-team');
      assert.deepEqual({ ...after, config: { ...after.config, projects } }, before.state);
      assert.deepEqual(
        await markers(),
        [...before.markers, 'project:beta-team'].sort((a, b) => a.localeCompare(b)),
      );
      const again = await makePlan(svc, org, readConfigFile(base()));
      assert.equal(again.changes.length + again.models.length, 0, renderPlan(again));
      const main = (await list('/manage/v1/routing-configs')).find((c) => c.slug === 'main');
      assert.equal(main?.managed_by, 'config');
      // The same file applies once the failure is gone.
      await applyPlan(await makePlan(svc, org, readConfigFile(next)));
      assert.equal((await list('/manage/v1/budgets')).find((b) => b.name === 'beta-daily')?.managed_by, 'config');
    });
  });
}
