// /mcp/v1 in front of real MCP servers from npm (server-everything over stdio and streamable HTTP,
// server-memory over stdio), driven by the official SDK client as an agent would.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { WebhookTables } from '../../src/store/webhooks-schema.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { connectClient, type EverythingServer, everythingBin, startEverything, textOf } from './helpers.ts';

type Json = Record<string, unknown>;
const require = createRequire(import.meta.url);
const memoryBin = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
const NODE = process.execPath;

let gw: Gateway;
let httpServer: EverythingServer;
let httpPort: number;

async function api(method: string, path: string, body?: Json, key = gw.adminKey) {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
}

const connect = (key: string): Promise<Client> => connectClient(gw.url, key);
const text = textOf;

for (const postgres of [false, true])
  describe(`MCP gateway (${postgres ? 'PostgreSQL' : 'SQLite'})`, () => {
    const servers: Record<string, Json> = {};
    before(async () => {
      httpServer = await startEverything('streamableHttp');
      httpPort = httpServer.port;
      gw = await startGateway({ postgres, config: { mcpStdioCommands: [NODE] } });
      for (const [name, body] of [
        ['everything', { transport: 'stdio', command: NODE, args: [everythingBin, 'stdio'] }],
        [
          'memory',
          {
            transport: 'stdio',
            command: NODE,
            args: [memoryBin],
            env: { MEMORY_FILE_PATH: `${gw.dataDir}/memory.jsonl` },
          },
        ],
        [
          'web',
          { transport: 'streamable_http', url: `http://127.0.0.1:${httpPort}/mcp`, headers: { 'x-token': 'sekrit' } },
        ],
      ] as const) {
        const r = await api('POST', '/manage/v1/mcp-servers', { name, ...body });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        servers[name] = r.body;
      }
    });
    after(async () => {
      await gw?.close();
      httpServer?.stop();
    });

    it('stores servers with header values write-only', async () => {
      const r = await api('GET', `/manage/v1/mcp-servers/${servers.web.id}`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.header_names, ['x-token']);
      assert.equal(JSON.stringify(r.body).includes('sekrit'), false);
      const dup = await api('POST', '/manage/v1/mcp-servers', {
        name: 'web',
        transport: 'streamable_http',
        url: 'https://example.com/mcp',
      });
      assert.equal(dup.status, 400);
    });

    it('refuses a link-local URL and a command off the allow-list at create', async () => {
      const link = await api('POST', '/manage/v1/mcp-servers', {
        name: 'meta',
        transport: 'streamable_http',
        url: 'http://169.254.169.254/mcp',
      });
      assert.equal(link.status, 400, JSON.stringify(link.body));
      const cmd = await api('POST', '/manage/v1/mcp-servers', {
        name: 'sh',
        transport: 'stdio',
        command: '/bin/sh',
        args: ['-c', 'id'],
      });
      assert.equal(cmd.status, 400);
      assert.match(JSON.stringify(cmd.body), /SWITCHYARD_MCP_STDIO_COMMANDS/);
      const bad = await api('POST', '/manage/v1/mcp-servers', { name: 'Bad__Name', transport: 'stdio', command: NODE });
      assert.equal(bad.status, 400);
    });

    it('lists namespaced tools of every server and calls them, results unchanged', async () => {
      const client = await connect(gw.adminKey);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const n of [
        'everything__echo',
        'everything__get-sum',
        'web__echo',
        'memory__create_entities',
        'memory__read_graph',
      ]) {
        assert.ok(names.includes(n), `${n} in ${names.join(',')}`);
      }
      for (const n of names) assert.match(n, /^[a-zA-Z0-9_-]{1,64}$/);
      const echo = (await client.callTool({
        name: 'everything__echo',
        arguments: { message: 'hi there' },
      })) as CallToolResult;
      assert.equal(text(echo), 'Echo: hi there');
      const viaHttp = (await client.callTool({
        name: 'web__echo',
        arguments: { message: 'over http' },
      })) as CallToolResult;
      assert.equal(text(viaHttp), 'Echo: over http');
      const sum = (await client.callTool({
        name: 'everything__get-sum',
        arguments: { a: 2, b: 40 },
      })) as CallToolResult;
      assert.match(text(sum), /42/);
      const image = (await client.callTool({ name: 'everything__get-tiny-image', arguments: {} })) as CallToolResult;
      const img = image.content.find((c) => c.type === 'image');
      assert.ok(img && img.type === 'image' && img.mimeType === 'image/png' && img.data.length > 100);
      const failing = (await client.callTool({
        name: 'everything__get-resource-reference',
        arguments: { resourceType: 'nope', resourceId: 1 },
      })) as CallToolResult;
      assert.equal(failing.isError, true);
      await client.close();
    });

    it('reports progress of a long-running tool', async () => {
      const client = await connect(gw.adminKey);
      const seen: number[] = [];
      const r = (await client.callTool(
        { name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
        undefined,
        { onprogress: (p) => seen.push(p.progress) },
      )) as CallToolResult;
      assert.notEqual(r.isError, true, text(r));
      assert.match(text(r), /Steps: 4/);
      // The SDK client handles a progress notification a microtask after reading it but the result at
      // once, so the last step, sent right before the result, can be read with it and dropped: the
      // steps before it must all arrive, in order.
      assert.deepEqual(seen.slice(0, 3), [1, 2, 3]);
      assert.ok(seen.length <= 4);
      await client.close();
    });

    it('federates resources and prompts', async () => {
      const client = await connect(gw.adminKey);
      const { resources } = await client.listResources();
      const mine = resources.find((r) => r.uri.startsWith('everything__'));
      assert.ok(mine, 'a resource of server-everything');
      const read = await client.readResource({ uri: mine.uri });
      assert.ok(read.contents.length > 0);
      const { prompts } = await client.listPrompts();
      const simple = prompts.find(
        (p) => p.name.startsWith('everything__') && (p.arguments ?? []).every((a) => !a.required),
      );
      assert.ok(simple, prompts.map((p) => p.name).join(','));
      const got = await client.getPrompt({ name: simple.name });
      assert.ok(got.messages.length > 0);
      await client.close();
    });

    it("a key's allowed_tools and its project bound what it sees and calls; a viewer may list, not call", async () => {
      // Set on create like allowed_models, shown with the key, changed by PATCH or the older alias.
      const key = (await api('POST', '/manage/v1/api-keys', { name: 'memory-only', allowed_tools: ['everything__*'] }))
        .body;
      assert.deepEqual(key.allowed_tools, ['everything__*']);
      assert.equal((await api('POST', '/manage/v1/api-keys', { name: 'x', allowed_tools: [] })).status, 400);
      const patched = await api('PATCH', `/manage/v1/api-keys/${key.id}`, { allowed_tools: ['memory__read_*'] });
      assert.deepEqual(patched.body.allowed_tools, ['memory__read_*']);
      const set = await api('POST', `/manage/v1/api-keys/${key.id}/allowed-tools`, { allowed_tools: ['memory__*'] });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const listed = (await api('GET', '/manage/v1/api-keys')).body.data as Json[];
      assert.deepEqual(listed.find((k) => k.id === key.id)?.allowed_tools, ['memory__*']);
      const client = await connect(String(key.key));
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.length > 0);
      assert.ok(
        names.every((n) => n.startsWith('memory__')),
        names.join(','),
      );
      const refused = (await client.callTool({
        name: 'everything__echo',
        arguments: { message: 'x' },
      })) as CallToolResult;
      assert.equal(refused.isError, true);
      await client.close();

      const projA = (await api('POST', '/manage/v1/projects', { name: 'a' })).body;
      const projB = (await api('POST', '/manage/v1/projects', { name: 'b' })).body;
      const onlyB = await api('POST', '/manage/v1/mcp-servers', {
        name: 'bonly',
        transport: 'streamable_http',
        url: `http://127.0.0.1:${httpPort}/mcp`,
        project_id: projB.id,
      });
      assert.equal(onlyB.status, 201);
      const keyA = (await api('POST', '/manage/v1/api-keys', { name: 'a', project_id: projA.id })).body;
      const keyB = (await api('POST', '/manage/v1/api-keys', { name: 'b', project_id: projB.id })).body;
      const a = await connect(String(keyA.key));
      const aNames = (await a.listTools()).tools.map((t) => t.name);
      assert.equal(
        aNames.some((n) => n.startsWith('bonly__')),
        false,
      );
      const aCall = (await a.callTool({ name: 'bonly__echo', arguments: { message: 'x' } })) as CallToolResult;
      assert.equal(aCall.isError, true);
      const b = await connect(String(keyB.key));
      assert.ok((await b.listTools()).tools.some((t) => t.name === 'bonly__echo'));
      await Promise.all([a.close(), b.close()]);

      const viewer = (await api('POST', '/manage/v1/api-keys', { name: 'v', role: 'viewer' })).body;
      const v = await connect(String(viewer.key));
      assert.ok((await v.listTools()).tools.length > 0);
      const vCall = (await v.callTool({ name: 'everything__echo', arguments: { message: 'x' } })) as CallToolResult;
      assert.equal(vCall.isError, true);
      assert.match(text(vCall), /viewer/);
      await v.close();
    });

    it('restarts a killed stdio server on the next call', async () => {
      const client = await connect(gw.adminKey);
      await client.callTool({ name: 'everything__echo', arguments: { message: 'before' } });
      const pid = gw.app.svc.mcpGateway.pidOf(String(servers.everything.id));
      assert.ok(pid !== null);
      process.kill(pid, 'SIGKILL');
      // Until the gateway has seen the exit (a call sent before then meets the dead pipe), however
      // long a loaded machine takes to tell it.
      const id = String(servers.everything.id);
      for (let i = 0; i < 500 && gw.app.svc.mcpGateway.pidOf(id) === pid; i++)
        await new Promise((r) => setTimeout(r, 20));
      const r = (await client.callTool({
        name: 'everything__echo',
        arguments: { message: 'after' },
      })) as CallToolResult;
      assert.equal(text(r), 'Echo: after');
      assert.notEqual(gw.app.svc.mcpGateway.pidOf(String(servers.everything.id)), pid);
      await client.close();
      // The death and the recovery are each one mcp_server.health_changed event.
      const db = gw.app.svc.db.withTables<WebhookTables>();
      let bodies: Json[] = [];
      for (let i = 0; i < 500 && bodies.length < 2; i++) {
        const rows = await db
          .selectFrom('domain_events')
          .select('body')
          .where('type', '=', 'mcp_server.health_changed')
          .execute();
        bodies = rows.map((r) => (JSON.parse(r.body) as { data: Json }).data).filter((d) => d.name === 'everything');
        if (bodies.length < 2) await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(
        bodies.map((d) => [d.previous, d.current]),
        [
          ['up', 'down'],
          ['down', 'up'],
        ],
      );
    });

    it('tells connected clients when the tool list changed', async () => {
      const client = await connect(gw.adminKey);
      const heard = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
      );
      // The notification comes on the session's GET stream, which the client opens after initialize.
      await new Promise((r) => setTimeout(r, 200));
      const r = await api('POST', '/manage/v1/mcp-servers', {
        name: 'added',
        transport: 'streamable_http',
        url: `http://127.0.0.1:${httpPort}/mcp`,
      });
      assert.equal(r.status, 201);
      await heard;
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'added__echo'));
      await client.close();
    });

    it('shows tools, health and latency of one server', async () => {
      const r = await api('GET', `/manage/v1/mcp-servers/${servers.memory.id}/tools`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.health, 'up');
      assert.equal(typeof r.body.latency_ms, 'number');
      assert.ok((r.body.tools as Json[]).some((t) => t.name === 'memory__read_graph'));
    });

    it('logs each call and counts it in /metrics; the rpm limit refuses the N+1th call', async () => {
      const limited = await api('POST', '/manage/v1/mcp-servers', {
        name: 'limited',
        transport: 'streamable_http',
        url: `http://127.0.0.1:${httpPort}/mcp`,
        rate_limits: { rpm: 2 },
      });
      assert.equal(limited.status, 201);
      const client = await connect(gw.adminKey);
      const results: CallToolResult[] = [];
      for (let i = 0; i < 3; i++)
        results.push(
          (await client.callTool({ name: 'limited__echo', arguments: { message: `n${i}` } })) as CallToolResult,
        );
      assert.equal(text(results[0]), 'Echo: n0');
      assert.equal(text(results[1]), 'Echo: n1');
      assert.equal(results[2].isError, true);
      assert.match(text(results[2]), /Rate limit exceeded/);
      await client.close();

      await gw.app.svc.logs.flush();
      const logs = await api('GET', '/manage/v1/logs?request_type=mcp_tool_call&model=limited__echo');
      assert.equal(logs.status, 200, JSON.stringify(logs.body));
      const rows = logs.body.data as Json[];
      assert.deepEqual(rows.map((r) => r.status_code).sort(), [200, 200, 429]);
      const byServer = await api('GET', '/manage/v1/logs?mcp_server=limited');
      assert.deepEqual(((byServer.body.data as Json[]) ?? []).map((r) => r.id).sort(), rows.map((r) => r.id).sort());
      const byTool = ((await api('GET', '/manage/v1/logs?tool=echo')).body.data as Json[]).map(
        (r) => r.model_requested,
      );
      assert.ok(byTool.includes('limited__echo') && byTool.includes('everything__echo'), byTool.join(','));
      assert.ok(byTool.every((n) => String(n).endsWith('__echo')));
      const ok = rows.find((r) => r.status_code === 200) as Json;
      assert.equal(ok.model_used, 'echo');
      const detail = await api('GET', `/manage/v1/logs/${ok.id}`);
      const trace = (detail.body.decision_trace as Json).mcp as Json;
      assert.equal(trace.server, 'limited');
      assert.ok(Number(trace.argument_bytes) > 0 && Number(trace.result_bytes) > 0);
      assert.match(String((detail.body.request as Json).message), /^n\d$/);
      const metrics = await (
        await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.adminKey}` } })
      ).text();
      assert.match(metrics, /switchyard_mcp_tool_calls_total\{server="limited",tool="echo",outcome="ok"\} 2/);
      assert.match(metrics, /switchyard_mcp_tool_calls_total\{server="limited",tool="echo",outcome="refused"\} 1/);
    });
  });
