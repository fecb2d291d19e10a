// How the gateway serves the dashboard: /ui and every app route answer index.html (history
// fallback), hashed assets are cached for a year and sent gzipped to clients that accept it,
// index.html is revalidated, unknown assets are 404 (never index.html under a script's name), and
// a gateway whose dashboard was never built answers 503 saying how to build it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { uiRoutes } from '../../src/http/ui-routes.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { buildUi, type Manifest, UI_BUILD } from './helpers/build.ts';

let gw: Gateway;
let manifest: Manifest;

before(async () => {
  manifest = buildUi();
  gw = await startGateway();
});

after(async () => {
  await gw?.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}${path}`, { headers, redirect: 'manual' });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

describe('the dashboard at /ui', () => {
  test('/ui and every app route answer index.html, revalidated on each load', async () => {
    for (const path of ['/ui', '/ui/', '/ui/overview', '/ui/logs/req_0123', '/ui/configs/rc_1', '/ui/no/such/page']) {
      const { res, body } = await get(path, { 'accept-encoding': 'identity' });
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/);
      assert.match(body.toString(), new RegExp(`/ui/${manifest.js.replace('.', '\\.')}`));
    }
  });

  test('index.html: an unchanged page is a 304 for its etag', async () => {
    const first = await get('/ui/');
    const etag = first.res.headers.get('etag');
    assert.ok(etag);
    const again = await get('/ui/logs', { 'if-none-match': etag });
    assert.equal(again.res.status, 304);
  });

  test('hashed assets: a year of caching, gzip when accepted, the bytes the build wrote', async () => {
    const raw = readFileSync(join(UI_BUILD, manifest.js));
    const zipped = await get(`/ui/${manifest.js}`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(zipped.res.status, 200);
    assert.equal(zipped.res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(zipped.res.headers.get('content-type') ?? '', /^text\/javascript/);
    // fetch decodes gzip itself; the header says it was sent compressed.
    assert.equal(zipped.res.headers.get('content-encoding'), 'gzip');
    assert.deepEqual(zipped.body, raw);
    assert.match(zipped.res.headers.get('vary') ?? '', /accept-encoding/);

    const plain = await get(`/ui/${manifest.css}`, { 'accept-encoding': 'identity' });
    assert.equal(plain.res.headers.get('content-encoding'), null);
    assert.match(plain.res.headers.get('content-type') ?? '', /^text\/css/);
    assert.deepEqual(plain.body, readFileSync(join(UI_BUILD, manifest.css)));
    const refused = await get(`/ui/${manifest.css}`, { 'accept-encoding': 'gzip;q=0' });
    assert.equal(refused.res.headers.get('content-encoding'), null);
  });

  test('the .gz twin holds the same bytes', () => {
    const raw = readFileSync(join(UI_BUILD, manifest.js));
    assert.deepEqual(gunzipSync(readFileSync(join(UI_BUILD, `${manifest.js}.gz`))), raw);
  });

  test('unknown assets are 404, never index.html; paths cannot leave the build', async () => {
    // (fetch resolves literal dot segments itself; encoded slashes reach the server as sent.)
    for (const path of ['/ui/assets/app-NOPE.js', '/ui/assets/..%2F..%2Fpackage.json', '/ui/assets/..%2Findex.html']) {
      const { res, body } = await get(path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(body.toString(), /<html/);
    }
  });

  test('HEAD works and needs no API key; the root document links the dashboard', async () => {
    const head = await fetch(`${gw.url}/ui/overview`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const root = (await (await fetch(`${gw.url}/`)).json()) as { docs: { dashboard?: string } };
    assert.match(root.docs.dashboard ?? '', /\/ui\/$/);
  });

  test('without a build: 503 naming the command that builds it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'sy-ui-none-'));
    const app = Fastify();
    try {
      await app.register(uiRoutes({ root: empty }));
      for (const url of ['/ui', '/ui/logs', '/ui/assets/app-X.js']) {
        const res = await app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 503, url);
        assert.match(res.body, /npm run build/);
      }
    } finally {
      await app.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
