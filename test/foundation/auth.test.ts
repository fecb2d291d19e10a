// Authentication: 401 shapes per family, both header forms, scoped keys, fast revocation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { hashApiKey } from '../../src/crypto/api-keys.ts';
import { openStore } from '../../src/store/index.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

describe('auth', () => {
  let gw: Gateway;
  before(async () => {
    gw = await startGateway();
  });
  after(async () => gw?.close());

  test('missing or invalid key: 401 in the family shape', async () => {
    for (const [path, headers] of [
      ['/beta/v1/messages', {}],
      ['/beta/v1/models', { 'x-api-key': 'sy-wrong' }],
    ] as const) {
      const r = await call(
        { url: gw.url, adminKey: '' },
        'POST',
        path,
        { model: 'x' },
        { authorization: '', ...headers },
      );
      assert.equal(r.status, 401);
      const body = r.body as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, 'authentication_error');
      assert.ok(body.error.message.length > 0);
      assert.deepEqual(Object.keys(body).sort(), ['error', 'type']);
    }
    for (const path of ['/alpha/v1/chat/completions', '/manage/v1/projects', '/mcp', '/alpha/v1/nope']) {
      const r = await call({ url: gw.url, adminKey: 'sy-invalid' }, 'POST', path, {});
      assert.equal(r.status, 401, path);
      const body = r.body as { error: Record<string, unknown> };
      assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
      assert.equal(body.error.type, 'authentication_error');
    }
  });

  test('a path the router matches to a protected route is refused without a key, however it is spelled', async () => {
    // %61 is "a": the router decodes it and matches the chat route, whose own path is protected.
    for (const path of ['/%61lpha/v1/chat/completions', '/%6Danage/v1/projects']) {
      const r = await call({ url: gw.url, adminKey: '' }, 'POST', path, {}, { authorization: '' });
      assert.equal(r.status, 401, path);
    }
    const ok = await call(gw, 'GET', '/%6Danage/v1/projects');
    assert.equal(ok.status, 200, 'with a key the same spelling is served');
  });

  test('Bearer and x-api-key both work; public routes need no key; every response has a request id', async () => {
    const bearer = await call(gw, 'GET', '/manage/v1/projects');
    assert.equal(bearer.status, 200);
    const xkey = await call({ url: gw.url, adminKey: '' }, 'GET', '/manage/v1/projects', undefined, {
      authorization: '',
      'x-api-key': gw.adminKey,
    });
    assert.equal(xkey.status, 200);
    const health = await fetch(`${gw.url}/healthz`);
    assert.equal(health.status, 200);
    assert.match(health.headers.get('x-svc-request-id') ?? '', /^req_[0-9a-z]{26}$/);
    for (const r of [bearer, xkey]) assert.match(r.headers.get('x-svc-request-id') ?? '', /^req_/);
    const unauth = await fetch(`${gw.url}/manage/v1/projects`);
    assert.match(unauth.headers.get('x-svc-request-id') ?? '', /^req_/);
  });

  test('project-scoped keys cannot use the management API (403)', async () => {
    const list = (await call(gw, 'GET', '/manage/v1/projects')).body as { data: Array<{ id: string }> };
    const created = await call(gw, 'POST', '/manage/v1/api-keys', { project_id: list.data[0]?.id, name: 'scoped' });
    assert.equal(created.status, 201);
    const key = (created.body as { key: string }).key;
    const r = await call({ url: gw.url, adminKey: key }, 'GET', '/manage/v1/projects');
    assert.equal(r.status, 403);
    assert.equal((r.body as { error: { type: string } }).error.type, 'permission_error');
  });

  test('revocation through the API takes effect at once', async () => {
    const created = await call(gw, 'POST', '/manage/v1/api-keys', { name: 'temp' });
    const { id, key } = created.body as { id: string; key: string };
    assert.equal((await call({ url: gw.url, adminKey: key }, 'GET', '/manage/v1/projects')).status, 200);
    assert.equal((await call(gw, 'DELETE', `/manage/v1/api-keys/${id}`)).status, 200);
    assert.equal((await call({ url: gw.url, adminKey: key }, 'GET', '/manage/v1/projects')).status, 401);
  });

  test('revocation by another process (the CLI) is seen within 1 s, and new keys work at once', async () => {
    const created = await call(gw, 'POST', '/manage/v1/api-keys', { name: 'cli-revoked' });
    const { id, key } = created.body as { id: string; key: string };
    assert.equal((await call({ url: gw.url, adminKey: key }, 'GET', '/manage/v1/projects')).status, 200);

    const other = await openStore(loadConfig({}, { dataDir: gw.dataDir, logLevel: 'silent' }));
    try {
      const org = await other.stores.orgKeys.firstOrg();
      assert.ok(org);
      await other.stores.orgKeys.revokeKey(org.id, id);
      const revokedAt = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 1500) {
        status = (await call({ url: gw.url, adminKey: key }, 'GET', '/manage/v1/projects')).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(status, 401);
      assert.ok(Date.now() - revokedAt <= 1000, `took ${Date.now() - revokedAt} ms`);

      // A key created by another process is accepted on first use (one store read).
      const plaintext = 'sy-created-elsewhere-0000000000000000';
      await other.stores.orgKeys.createKey({
        id: 'key_01aaaaaaaaaaaaaaaaaaaaaaaa',
        orgId: org.id,
        projectId: null,
        name: 'elsewhere',
        keyHash: hashApiKey(plaintext),
        prefix: 'sy-created',
      });
      assert.equal((await call({ url: gw.url, adminKey: plaintext }, 'GET', '/manage/v1/projects')).status, 200);
    } finally {
      await other.close();
    }
  });

  test('a cached key is served from memory: no store read per request', async () => {
    const store = gw.app.svc.stores.orgKeys;
    const original = store.findByHash;
    let reads = 0;
    store.findByHash = async (h) => {
      reads++;
      return original.call(store, h);
    };
    try {
      for (let i = 0; i < 20; i++) await call(gw, 'GET', '/alpha/v1/unknown-route');
      assert.equal(reads, 0);
    } finally {
      store.findByHash = original;
    }
  });
});
