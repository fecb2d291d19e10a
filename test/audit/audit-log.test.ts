// The audit log end to end on both dialects: one routing-config update through each door (REST,
// MCP with the official SDK client, and REST as the dashboard sends it: its headers and a browser
// user agent; dashboard.test.ts drives the real dashboard in Chromium), each entry with its actor
// and before/after; no provider key, webhook signing secret or API key in any entry; the chain
// verifies, then names the entry edited in the database.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { dialects, TEST_PG_URL } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

type Json = Record<string, unknown>;
interface Entry {
  id: string;
  action: string;
  actor: { type: string; id: string; name: string | null };
  resource: { type: string; id: string | null };
  before: Json | null;
  after: Json | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  hash: string;
}

const PROVIDER_KEY = 'sk-audit-provider-secret-0123456789abcdef';
const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36';

async function createKey(gw: Gateway, name: string): Promise<{ id: string; key: string }> {
  const res = await call(gw, 'POST', '/manage/v1/api-keys', { name });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; key: string };
}

/** Runs one statement against the gateway's database, behind its back. */
async function tamper(gw: Gateway, dialect: string, statement: string, id: string): Promise<void> {
  if (dialect === 'sqlite') {
    const db = new SQLite(join(gw.dataDir, 'switchyard.db'));
    try {
      db.prepare(statement.replace('$1', '?')).run(id);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    await client.query(`set search_path to "${gw.pgSchema}"`);
    await client.query(statement, [id]);
  } finally {
    await client.end();
  }
}

for (const d of await dialects()) {
  describe(`audit log (${d.name})`, { skip: d.skip }, () => {
    let gw: Gateway;
    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres' });
    });
    after(async () => gw?.close());

    test('records config updates from REST, MCP and the dashboard; the chain detects an edit', async () => {
      const mcpKey = await createKey(gw, 'mcp agent');
      const dashKey = await createKey(gw, 'dashboard user');
      const prov = await call(gw, 'POST', '/manage/v1/providers', {
        vendor: 'openai',
        api_key: PROVIDER_KEY,
        verify: false,
      });
      assert.equal(prov.status, 201, prov.text);
      const hook = await call(gw, 'POST', '/manage/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/hook' });
      assert.equal(hook.status, 201, hook.text);
      const signingSecret = (hook.body as { signing_secret: string }).signing_secret;
      assert.ok(signingSecret.length > 10);

      const created = await call(gw, 'POST', '/manage/v1/routing-configs', {
        name: 'Audited',
        slug: 'audited',
        strategy: 'single',
        config: { model: 'openai/gpt-4o-mini' },
      });
      assert.equal(created.status, 201, created.text);
      const configId = (created.body as { id: string }).id;

      const rest = await call(gw, 'PATCH', `/manage/v1/routing-configs/${configId}`, { name: 'By REST' });
      assert.equal(rest.status, 200, rest.text);

      const client = new Client({ name: 'audit-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${mcpKey.key}` } },
        }),
      );
      try {
        const res = await client.callTool({
          name: 'update_routing_config',
          arguments: { config_id: configId, name: 'By MCP' },
        });
        assert.notEqual(res.isError, true, JSON.stringify(res));
      } finally {
        await client.close();
      }

      // What ui/src/api.ts sends: accept, bearer key, JSON body; the browser adds its user agent.
      const dash = await fetch(`${gw.url}/manage/v1/routing-configs/${configId}`, {
        method: 'PATCH',
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${dashKey.key}`,
          'content-type': 'application/json',
          'user-agent': CHROME_UA,
        },
        body: JSON.stringify({ name: 'By dashboard' }),
      });
      assert.equal(dash.status, 200);

      const listed = await call(
        gw,
        'GET',
        `/manage/v1/audit-logs?resource_type=routing_config&resource_id=${configId}&action=routing_config.update`,
      );
      assert.equal(listed.status, 200, listed.text);
      const updates = (listed.body as { data: Entry[] }).data.reverse();
      assert.deepEqual(
        updates.map((e) => [e.actor.type, e.actor.name, e.before?.name, e.after?.name]),
        [
          ['api_key', 'admin (SWITCHYARD_ADMIN_KEY)', 'Audited', 'By REST'],
          ['api_key', 'mcp agent', 'By REST', 'By MCP'],
          ['api_key', 'dashboard user', 'By MCP', 'By dashboard'],
        ],
      );
      assert.deepEqual(updates.map((e) => e.actor.id).slice(1), [mcpKey.id, dashKey.id]);
      assert.deepEqual(
        updates.map((e) => [e.before?.version, e.after?.version]),
        [
          [1, 2],
          [2, 3],
          [3, 4],
        ],
      );
      const dashEntry = updates[2];
      assert.equal(dashEntry?.user_agent, CHROME_UA);
      assert.equal(dashEntry?.ip, '127.0.0.1');
      assert.match(dashEntry?.request_id ?? '', /^req_/);

      const one = await call(gw, 'GET', `/manage/v1/audit-logs/${dashEntry?.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, dashEntry);

      const exported = await call(gw, 'GET', '/manage/v1/audit-logs/export');
      assert.equal(exported.status, 200);
      assert.match(exported.headers.get('content-type') ?? '', /ndjson/);
      const lines = exported.text.trim().split('\n');
      const actions = lines.map((l) => (JSON.parse(l) as Entry).action);
      for (const a of ['api_key.create', 'provider.add', 'webhook_endpoint.create', 'routing_config.create']) {
        assert.ok(actions.includes(a), `${a} in ${actions.join(', ')}`);
      }
      for (const secret of [PROVIDER_KEY, signingSecret, mcpKey.key, dashKey.key, gw.adminKey]) {
        assert.ok(!exported.text.includes(secret), 'a secret reached the audit log');
      }

      // Project keys are for the proxy: the audit log is the organization's.
      const project = await call(gw, 'POST', '/manage/v1/projects', { name: 'Audit scope' });
      const projectKey = await call(gw, 'POST', '/manage/v1/api-keys', {
        name: 'project key',
        project_id: (project.body as { id: string }).id,
      });
      assert.equal(projectKey.status, 201, projectKey.text);
      const asProject = { url: gw.url, adminKey: (projectKey.body as { key: string }).key };
      assert.equal((await call(asProject, 'GET', '/manage/v1/audit-logs')).status, 403);
      assert.equal((await call(asProject, 'GET', '/manage/v1/audit-logs/export')).status, 403);

      // No door edits or deletes entries.
      assert.equal((await call(gw, 'DELETE', `/manage/v1/audit-logs/${dashEntry?.id}`)).status, 404);
      assert.equal((await call(gw, 'PATCH', `/manage/v1/audit-logs/${dashEntry?.id}`, {})).status, 404);

      const ok = await call(gw, 'GET', '/manage/v1/audit-logs/verify');
      assert.deepEqual(ok.body, { ok: true, checked: lines.length + 2, first_bad_id: null });

      const victim = updates[1];
      assert.ok(victim);
      await tamper(
        gw,
        d.name,
        `update audit_log set after = replace(after, 'By MCP', 'By nobody') where id = $1`,
        victim.id,
      );
      const bad = await call(gw, 'GET', '/manage/v1/audit-logs/verify');
      assert.equal((bad.body as Json).ok, false);
      assert.equal((bad.body as Json).first_bad_id, victim.id);
    });

    test('SWITCHYARD_AUDIT_RETENTION_DAYS deletes old entries; the rest still verifies', async () => {
      // About 86 ms, so one entry is old by the time the next write sweeps.
      const short = await startGateway({ postgres: d.name === 'postgres', config: { auditRetentionDays: 1e-6 } });
      try {
        const first = await call(short, 'POST', '/manage/v1/projects', { name: 'Old one' });
        assert.equal(first.status, 201, first.text);
        await new Promise((r) => setTimeout(r, 200));
        const second = await call(short, 'POST', '/manage/v1/projects', { name: 'New one' });
        assert.equal(second.status, 201, second.text);
        const newId = (second.body as { id: string }).id;
        let ids: Array<string | null> = [];
        for (let i = 0; i < 100; i++) {
          const page = await call(short, 'GET', '/manage/v1/audit-logs');
          ids = (page.body as { data: Entry[] }).data.map((e) => e.resource.id);
          if (ids.length === 1) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        assert.deepEqual(ids, [newId]);
        const verify = await call(short, 'GET', '/manage/v1/audit-logs/verify');
        assert.deepEqual(verify.body, { ok: true, checked: 1, first_bad_id: null });
      } finally {
        await short.close();
      }
    });
  });
}
