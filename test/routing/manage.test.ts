// Routing-config management through REST (and one tool through MCP): both body forms, version life
// cycle, slug reuse after delete, credential references, the test operation's dry run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { api, type RoutingEnv, startRoutingEnv } from './env.ts';

type Json = Record<string, unknown>;

describe('routing config management', () => {
  let env: RoutingEnv;
  before(async () => {
    env = await startRoutingEnv();
  });
  after(async () => env?.close());

  it('runs the version life cycle', async () => {
    const created = await api(env, 'POST', '/manage/v1/routing-configs', {
      name: 'Life cycle',
      slug: 'life',
      strategy: 'fallback',
      config: { attempts: [{ model: 'openai/gpt-4o-mini', timeout_ms: 5000 }], retry_on: ['429', '5xx', 'timeout'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const c = created.json as Json;
    assert.deepEqual([c.version, c.model, c.strategy], [1, '@life', 'fallback']);
    const p1 = await api(env, 'PATCH', `/manage/v1/routing-configs/${c.id}`, { config: { models: ['openai/gpt-4o'] } });
    const p2 = await api(env, 'PATCH', `/manage/v1/routing-configs/${c.id}`, { name: 'Renamed' });
    assert.deepEqual([(p1.json as Json).version, (p2.json as Json).version], [2, 3]);
    const versions = await api(env, 'GET', `/manage/v1/routing-configs/${c.id}/versions`);
    const list = (versions.json as { data: Json[] }).data;
    assert.deepEqual(
      list.map((v) => [v.version, v.current]),
      [
        [1, false],
        [2, false],
        [3, true],
      ],
    );
    const v1 = await api(env, 'GET', `/manage/v1/routing-configs/${c.id}/versions/${list[0].id}`);
    assert.deepEqual((v1.json as Json).config, c.config);
    const restored = await api(env, 'POST', `/manage/v1/routing-configs/${c.id}/versions/1/restore`);
    const r = restored.json as Json;
    assert.deepEqual([restored.status, r.version, r.restored_from, r.name], [200, 4, 1, 'Life cycle']);
    assert.deepEqual(r.config, c.config);
    const current = await api(env, 'GET', `/manage/v1/routing-configs/${c.id}`);
    assert.deepEqual([(current.json as Json).version, (current.json as Json).config], [4, c.config]);
    const dry = await api(env, 'POST', `/manage/v1/routing-configs/${c.id}/test`, {
      messages: [{ role: 'user', content: 'hi' }],
      dry_run: true,
    });
    assert.deepEqual((dry.json as { dry_run: Json }).dry_run.config, { slug: 'life', version: 4 });
    const run = await api(env, 'POST', `/manage/v1/routing-configs/${c.id}/test`, {
      messages: [{ role: 'user', content: 'hi' }],
      dry_run: false,
    });
    const ran = run.json as { status: number; response: Json; trace: Json };
    assert.equal(ran.status, 200, JSON.stringify(ran));
    assert.equal((ran.trace.attempts as Json[]).length, 1);
  });

  it('accepts the second body form and keeps slugs unique among live configs', async () => {
    const body = {
      projectId: null,
      name: 'Other form',
      slug: 'form2',
      policy: 'fallback_chain',
      config: { models: [{ model: 'openai/gpt-4o-mini', provider_credential_id: env.providers.openai }] },
    };
    const a = await api(env, 'POST', '/manage/v1/routing-configs', body);
    assert.equal(a.status, 201, JSON.stringify(a.json));
    assert.equal((a.json as Json).strategy, 'fallback');
    const dup = await api(env, 'POST', '/manage/v1/routing-configs', body);
    assert.equal(dup.status, 409);
    // The credential is referenced by a live config: deleting it is refused and names the config.
    const del = await api(env, 'DELETE', `/manage/v1/providers/${env.providers.openai}`);
    assert.equal(del.status, 409);
    assert.match(JSON.stringify(del.json), /@form2/);
    const gone = await api(env, 'DELETE', `/manage/v1/routing-configs/${(a.json as Json).id}`);
    assert.equal(gone.status, 200);
    const again = await api(env, 'POST', '/manage/v1/routing-configs', body);
    assert.equal(again.status, 201);
    await api(env, 'DELETE', `/manage/v1/routing-configs/${(again.json as Json).id}`);
    const bad = await api(env, 'POST', '/manage/v1/routing-configs', {
      name: 'bad',
      strategy: 'fallback',
      config: { models: ['nope'] },
    });
    assert.equal(bad.status, 400);
    assert.equal(((bad.json as { error: Json }).error as Json).param, 'config.models[0].model');
    const unknownCred = await api(env, 'POST', '/manage/v1/routing-configs', {
      name: 'cred',
      strategy: 'single',
      config: { model: { model: 'openai/gpt-4o', provider_credential_id: 'prov_missing' } },
    });
    assert.equal(unknownCred.status, 400);
  });

  it('lists configs and serves a tool through MCP', async () => {
    const listed = await api(env, 'GET', '/manage/v1/routing-configs?limit=1');
    const page = listed.json as { data: Json[]; has_more: boolean; next_cursor: string | null };
    assert.equal(page.data.length, 1);
    const client = new Client({ name: 'routing-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${env.gw.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.gw.adminKey}` } },
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      const at = names.indexOf('list_routing_configs');
      assert.deepEqual(names.slice(at, at + 9), [
        'list_routing_configs',
        'get_routing_config',
        'create_routing_config',
        'update_routing_config',
        'delete_routing_config',
        'list_routing_config_versions',
        'get_routing_config_version',
        'restore_routing_config_version',
        'test_routing_config',
      ]);
      const res = await client.callTool({
        name: 'create_routing_config',
        arguments: { name: 'From MCP', strategy: 'single', config: { model: 'openai/gpt-4o-mini' } },
      });
      assert.notEqual(res.isError, true, JSON.stringify(res));
    } finally {
      await client.close();
    }
  });
});
