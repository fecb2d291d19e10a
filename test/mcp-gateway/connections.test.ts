// How /mcp/v1 reaches registered servers and how its own sessions behave across instances:
// server-everything over SSE end to end, the address policy applied when a connection is made (not
// only when a URL is registered), and a client whose session another instance does not hold.
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { mcpFetch } from '../../src/mcp-gateway/guarded-fetch.ts';
import { Upstream } from '../../src/mcp-gateway/upstream.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { connectClient, type EverythingServer, startEverything, textOf } from './helpers.ts';

type Json = Record<string, unknown>;

let http: EverythingServer;
let sse: EverythingServer;

before(async () => {
  [http, sse] = await Promise.all([startEverything('streamableHttp'), startEverything('sse')]);
});
after(() => {
  http?.stop();
  sse?.stop();
});

async function register(gw: Gateway, body: Json): Promise<Json> {
  const r = await call(gw, 'POST', '/manage/v1/mcp-servers', body);
  assert.equal(r.status, 201, r.text);
  return r.body as Json;
}

describe('a server over SSE', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway();
  });
  after(async () => {
    await gw?.close();
  });

  it('is listed, called and probed through /mcp/v1', async () => {
    const s = await register(gw, { name: 'legacy', transport: 'sse', url: `http://127.0.0.1:${sse.port}/sse` });
    const client = await connectClient(gw.url, gw.adminKey);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('legacy__echo') && names.includes('legacy__get-sum'), names.join(','));
    const echo = (await client.callTool({
      name: 'legacy__echo',
      arguments: { message: 'over sse' },
    })) as CallToolResult;
    assert.equal(textOf(echo), 'Echo: over sse');
    const sum = (await client.callTool({ name: 'legacy__get-sum', arguments: { a: 20, b: 22 } })) as CallToolResult;
    assert.match(textOf(sum), /42/);
    await client.close();
    const probe = await call(gw, 'GET', `/manage/v1/mcp-servers/${s.id}/tools`);
    assert.equal((probe.body as Json).health, 'up', probe.text);
  });
});

describe('the address policy when a connection is made', () => {
  const logger = pino({ level: 'silent' });

  /** A resolver that answers `rebind.test` with whatever `target` holds now, as a rebinding DNS would. */
  function rebinding(): { lookup: LookupFunction; target: { address: string } } {
    const target = { address: '127.0.0.1' };
    const lookup = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => {
      if (opts.all) cb(null, [{ address: target.address, family: 4 }]);
      else cb(null, target.address, 4);
    }) as LookupFunction;
    return { lookup, target };
  }

  function upstreamVia(fetch: FetchLike, transport: 'streamable_http' | 'sse' = 'streamable_http'): Upstream {
    return new Upstream(
      {
        id: 'mcp_test',
        orgId: 'org_test',
        name: 'rebound',
        transport,
        url: transport === 'sse' ? `http://rebind.test:${sse.port}/sse` : `http://rebind.test:${http.port}/mcp`,
        command: null,
        args: [],
        headers: {},
        env: {},
        version: '1',
      },
      // Long enough that a refusal cannot be mistaken for the connect timeout.
      { logger, connectTimeoutMs: 30_000, fetch, onListChanged: () => {}, onHealth: () => {} },
    );
  }

  it('a name that resolves to a link-local address at connect time is refused, with the reason', async () => {
    const dns = rebinding();
    const first = mcpFetch({ denyPrivate: false, lookup: dns.lookup });
    const allowed = upstreamVia(first.fetch);
    // While the name resolves to an allowed address, the server is reached through it.
    assert.ok((await allowed.tools()).some((t) => t.name === 'echo'));
    await allowed.close();
    await first.close();

    dns.target.address = '169.254.169.254';
    const second = mcpFetch({ denyPrivate: false, lookup: dns.lookup });
    const refused = upstreamVia(second.fetch);
    await assert.rejects(refused.tools(), /169\.254\.169\.254 is a link-local address/);
    assert.equal(refused.health, 'down');
    await refused.close();
    // The SSE transport's event stream goes through the same fetch.
    const overSse = upstreamVia(second.fetch, 'sse');
    await assert.rejects(overSse.tools(), /169\.254\.169\.254 is a link-local address/);
    await overSse.close();
    await second.close();
  });

  it('a server registered before private addresses were denied answers a tool error, not a hang', async () => {
    let gw = await startGateway();
    try {
      const s = await register(gw, {
        name: 'local',
        transport: 'streamable_http',
        url: `http://localhost:${http.port}/mcp`,
      });
      const before = await connectClient(gw.url, gw.adminKey);
      const ok = (await before.callTool({ name: 'local__echo', arguments: { message: 'x' } })) as CallToolResult;
      assert.equal(textOf(ok), 'Echo: x');
      await before.close();
      await gw.close({ keepData: true });

      gw = await startGateway({ dataDir: gw.dataDir, config: { webhookDenyPrivate: true } });
      const client = await connectClient(gw.url, gw.adminKey);
      const r = (await client.callTool({ name: 'local__echo', arguments: { message: 'x' } })) as CallToolResult;
      assert.equal(r.isError, true);
      assert.match(textOf(r), /MCP server 'local' is unavailable: .*loopback/);
      await client.close();
      const probe = (await call(gw, 'GET', `/manage/v1/mcp-servers/${s.id}/tools`)).body as Json;
      assert.equal(probe.health, 'down');
      assert.match(String(probe.error), /loopback/);
    } finally {
      await gw.close();
    }
  });
});

describe('sessions across instances', () => {
  let a: Gateway;
  let b: Gateway;
  before(async () => {
    a = await startGateway();
    b = await startGateway({ dataDir: a.dataDir, adminKey: a.adminKey });
    await register(a, { name: 'web', transport: 'streamable_http', url: `http://127.0.0.1:${http.port}/mcp` });
  });
  after(async () => {
    await b?.close({ keepData: true });
    await a?.close();
  });

  it('another instance answers an unknown session with 404 and a JSON-RPC error', async () => {
    const client = await connectClient(a.url, a.adminKey);
    const transport = client.transport as { sessionId?: string } | undefined;
    const sid = String(transport?.sessionId);
    const res = await fetch(`${b.url}/mcp/v1`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${b.adminKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(res.status, 404);
    const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string } };
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.error.code, -32001);
    assert.match(body.error.message, /Session not found/);
    await client.close();
  });

  it('a client whose session was lost behind a load balancer re-initializes and goes on', async () => {
    // A balancer that is not sticky: it sends each request to whichever instance `to` names now.
    let to = a.url;
    const balancer: FetchLike = (url, init) => fetch(String(url).replace(/^http:\/\/[^/]+/, to), init);
    const lb = 'http://balancer.invalid';
    const first = await connectClient(lb, a.adminKey, balancer);
    const r1 = (await first.callTool({ name: 'web__echo', arguments: { message: 'one' } })) as CallToolResult;
    assert.equal(textOf(r1), 'Echo: one');

    to = b.url;
    // The official client does not re-initialize by itself: the 404 reaches the caller...
    const lost = await first.callTool({ name: 'web__echo', arguments: { message: 'two' } }).then(
      () => null,
      (err: unknown) => err,
    );
    assert.ok(lost instanceof StreamableHTTPError, String(lost));
    assert.equal(lost.code, 404);
    await first.close();
    // ...which connects a new client (initialize without a session id) and repeats the call.
    const second = await connectClient(lb, a.adminKey, balancer);
    const r2 = (await second.callTool({ name: 'web__echo', arguments: { message: 'two' } })) as CallToolResult;
    assert.equal(textOf(r2), 'Echo: two');
    await second.close();
  });
});
