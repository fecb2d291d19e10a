// One source of truth: the MCP tools and /openapi.yaml come from the operation list, the committed
// openapi.yaml and mcp-tools.json match a fresh generation (drift test), and the document is valid.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { validate } from '@readme/openapi-parser';
import { parse } from 'yaml';
import { openApiYaml, toolsJson } from '../../src/manage/openapi.ts';
import { OPERATIONS } from '../../src/manage/operations.ts';
import { PROXY_PATHS } from '../../src/manage/proxy-paths.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const EXPECTED_TOOLS = [
  'list_projects',
  'get_project',
  'create_project',
  'update_project',
  'delete_project',
  'list_providers',
  'get_provider',
  'add_provider',
  'update_provider',
  'delete_provider',
  'get_provider_health',
  'list_api_keys',
  'create_api_key',
  'revoke_api_key',
];

describe('operations -> MCP and OpenAPI', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway();
  });
  after(async () => gw?.close());

  test('drift: committed openapi.yaml and mcp-tools.json equal a fresh generation', () => {
    const hint = 'run `node bin/switchyard.js openapi --write` and commit the result';
    assert.equal(readFileSync(join(ROOT, 'openapi.yaml'), 'utf8'), openApiYaml(OPERATIONS, PROXY_PATHS), hint);
    assert.equal(readFileSync(join(ROOT, 'mcp-tools.json'), 'utf8'), toolsJson(OPERATIONS), hint);
  });

  test('the official MCP client lists exactly the operations and calls create_project', async () => {
    const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      // Later issues append their operations after these.
      assert.deepEqual(tools.map((t) => t.name).slice(0, EXPECTED_TOOLS.length), EXPECTED_TOOLS);
      assert.deepEqual(
        tools.map((t) => t.name),
        OPERATIONS.map((o) => o.name),
      );
      const created = await client.callTool({ name: 'create_project', arguments: { name: 'From MCP' } });
      assert.ok(!created.isError, JSON.stringify(created));
      const project = created.structuredContent as { id: string; slug: string };
      assert.equal(project.slug, 'from-mcp');
      const got = await call(gw, 'GET', `/manage/v1/projects/${project.id}`);
      assert.equal(got.status, 200);

      const listed = await client.callTool({ name: 'list_projects', arguments: { limit: 1 } });
      assert.equal((listed.structuredContent as { data: unknown[] }).data.length, 1);
      const bad = await client.callTool({ name: 'create_project', arguments: { name: 7 } });
      assert.equal(bad.isError, true);
      const missing = await client.callTool({ name: 'get_project', arguments: { project_id: 'proj_nope' } });
      assert.equal(missing.isError, true);
    } finally {
      await client.close();
    }
  });

  test('/mcp needs the API key', async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
  });

  test('/openapi.yaml is public, OpenAPI 3.1, version 1.0.0, valid, and lists every path', async () => {
    const res = await fetch(`${gw.url}/openapi.yaml`);
    assert.equal(res.status, 200);
    const doc = parse(await res.text()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    const result = await validate(structuredClone(doc) as never);
    assert.equal(result.valid, true, JSON.stringify(result));
    for (const op of OPERATIONS) assert.equal(doc.paths[op.path]?.[op.method.toLowerCase()]?.operationId, op.name);
    for (const p of ['/alpha/v1/chat/completions', '/alpha/v1/embeddings', '/alpha/v1/models', '/beta/v1/messages']) {
      assert.ok(doc.paths[p], p);
    }
  });
});
