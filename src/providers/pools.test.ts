// The lanes are the transport's only Agents: one per lane, shared by every caller, with the options
// each kind of call had before they were pooled in one place. The chat lane is the proxy's hot path,
// so its options are pinned here: a change to them is a change to measure (bench/), not a tidy-up.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { LANE_OPTIONS, laneAgent, ownAgent, request, undiciErrors, upstreamLookup } from './pools.ts';

test('one Agent per lane, the same for every caller', () => {
  assert.equal(laneAgent('files'), laneAgent('files'));
  assert.notEqual(laneAgent('files'), laneAgent('batches'));
});

test('the chat lane keeps the hot path pool options', () => {
  assert.deepEqual(LANE_OPTIONS.chat, {
    connections: 256,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
});

test('a host that resolves to a link-local or metadata address is not dialled; loopback is', async () => {
  // A name rebound to the cloud metadata address after its base_url was checked.
  const rebound: LookupFunction = (_host, _opts, cb) =>
    (cb as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
      { address: '169.254.169.254', family: 4 },
    ]);
  const agent = ownAgent({ connect: { lookup: upstreamLookup(rebound) } });
  const err = await request('http://api.vendor.example/', { method: 'GET', dispatcher: agent }).catch(
    (e: unknown) => e,
  );
  assert.ok(err instanceof Error);
  assert.match(String((err as { cause?: unknown }).cause ?? err), /169\.254\.169\.254|refused|link-local|metadata/i);
  await agent.close();
  const { sendUpstream, UpstreamTransportError } = await import('./http.ts');
  const local = await sendUpstream({ method: 'GET', url: 'http://localhost:1/', headers: {} }).catch((e) => e);
  assert.ok(local instanceof UpstreamTransportError);
  assert.match(local.info.message, /connection refused/, 'localhost is dialled (the closed port refuses)');
});

test('request sends the path and query on the dispatcher it is given, and refuses what is not http(s)', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const agent = ownAgent({});
  try {
    const res = await request(`http://127.0.0.1:${port}/v1/models?limit=2`, { method: 'GET', dispatcher: agent });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), 'ok');
    assert.deepEqual(seen, ['GET /v1/models?limit=2']);
    // Thrown before anything is sent, as undici's own request() does.
    assert.throws(
      () => request('ftp://127.0.0.1/file', { method: 'GET', dispatcher: agent }),
      undiciErrors.InvalidArgumentError,
    );
  } finally {
    await agent.close();
    server.close();
  }
});

test("the transport leaves undici's entry module (fetch, WebSocket, the mocks) unloaded", async () => {
  const pools = JSON.stringify(new URL('./pools.ts', import.meta.url).href);
  const code = `
    import { createRequire } from 'node:module';
    await import(${pools});
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('undici'));
    process.stdout.write(JSON.stringify(loaded));`;
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    code,
  ]);
  const loaded: string[] = JSON.parse(stdout);
  assert.ok(
    loaded.some((f) => f.endsWith('agent.js')),
    'the client side is loaded',
  );
  assert.deepEqual(
    loaded.filter((f) => /undici[\\/]index\.js$|[\\/]web[\\/]/.test(f)),
    [],
  );
});
