// Files that live upstream, through the official SDK: the default openai credential, azure-openai and
// a credential id named by X-Svc-Provider, BYOK keys with the stored base address, the upstream's own
// refusals passed on, one list over both places, the log row of each endpoint, and an org without an
// OpenAI-wire credential, whose uploads the gateway keeps.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { startGateway } from '../helpers/gateway.ts';
import { type ProxyEnv, STORED_KEY, startProxyEnv } from '../helpers/proxy-env.ts';
import { form, type Json, logRow, notFoundBody, raw, sdk } from './helpers.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

/** What the fake upstream saw of its files API since `from` (method, path, query, masked auth). */
function upstreamFileCalls(from: number) {
  return env.fake
    .requests()
    .filter((r) => r.at >= from && /\/files/.test(r.path))
    .map((r) => ({
      method: r.method,
      path: r.path,
      query: r.query,
      auth: r.headers.authorization ?? r.headers['api-key'],
      length: r.headers['content-length'],
    }));
}

async function apiError(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OpenAI.APIError) return err;
    throw err;
  }
  assert.fail('expected an API error');
}

describe('upstream files', () => {
  test("by default the org's openai credential holds the file: every endpoint reaches it, with the vendor's id", async () => {
    const from = Date.now();
    const client = sdk(env.gw);
    const data = randomBytes(250_000);
    const { data: file, response } = await client.files
      .create({ file: await toFile(data, 'data.bin'), purpose: 'user_data' })
      .withResponse();
    assert.match(file.id, /^file-/);
    assert.doesNotMatch(file.id, /^file-sy/);
    assert.equal(response.headers.get('x-svc-provider'), 'openai');
    assert.equal(file.bytes, data.length);
    assert.deepEqual(await client.files.retrieve(file.id), file);
    assert.ok((await client.files.list()).data.some((f) => f.id === file.id));
    const content = await client.files.content(file.id);
    assert.ok(data.equals(Buffer.from(await content.arrayBuffer())), 'byte for byte');
    assert.deepEqual(await client.files.delete(file.id), { id: file.id, object: 'file', deleted: true });
    const gone = await raw(env.gw, 'GET', `/alpha/v1/files/${file.id}`);
    assert.deepEqual([gone.status, gone.json], [404, notFoundBody(file.id)]);

    const calls = upstreamFileCalls(from);
    const base = '/openai/v1/files';
    assert.deepEqual(
      calls.map((c) => `${c.method} ${c.path}`),
      [`POST ${base}`, `GET ${base}/${file.id}`, `GET ${base}/${file.id}/content`, `DELETE ${base}/${file.id}`],
      'list answers from the gateway’s records; the rest go to the upstream',
    );
    const upload = calls[0];
    assert.ok(Number(upload.length) > data.length, 'sent with a Content-Length');
    assert.ok(upload.auth?.endsWith(STORED_KEY.slice(-4)), 'with the stored key');
  });

  test('X-Svc-Provider picks azure-openai by vendor id or by credential id', async () => {
    for (const named of ['azure-openai', env.providers['azure-openai'], 'vendor_4']) {
      const from = Date.now();
      const client = sdk(env.gw, env.gw.adminKey, { 'X-Svc-Provider': named });
      const file = await client.files.create({
        file: await toFile(Buffer.from('{"a":1}\n'), 'a.jsonl'),
        purpose: 'batch',
      });
      // Reached again without the header: the gateway remembers where the file lives.
      assert.equal(await (await sdk(env.gw).files.content(file.id)).text(), '{"a":1}\n');
      const calls = upstreamFileCalls(from);
      assert.deepEqual(
        calls.map((c) => [c.method, c.path]),
        [
          ['POST', '/azure/openai/files'],
          ['GET', `/azure/openai/files/${file.id}/content`],
        ],
        named,
      );
      assert.ok(calls.every((c) => c.query['api-version'] !== undefined));
    }
  });

  test('X-Svc-Provider-Key replaces the key, never the stored base address', async () => {
    const byok = 'sk-byok-files-key-9876';
    const from = Date.now();
    const client = sdk(env.gw, env.gw.adminKey, { 'X-Svc-Provider-Key': byok });
    const file = await client.files.create({
      file: await toFile(Buffer.from('mine'), 'mine.txt'),
      purpose: 'user_data',
    });
    await client.files.retrieve(file.id);
    const calls = upstreamFileCalls(from);
    assert.deepEqual(
      calls.map((c) => c.path),
      ['/openai/v1/files', `/openai/v1/files/${file.id}`],
    );
    assert.ok(
      calls.every((c) => c.auth?.endsWith('9876')),
      'the caller’s key on every call',
    );
    const row = await logRow(env.gw, (await raw(env.gw, 'GET', `/alpha/v1/files/${file.id}`)).requestId);
    assert.doesNotMatch(JSON.stringify(row), /byok-files/, 'the key is never logged');
  });

  test("the upstream's refusals are passed on with its status and body, and nothing is recorded", async () => {
    const notJsonl = await raw(env.gw, 'POST', '/alpha/v1/files', {
      body: form({ purpose: 'batch' }, { data: Buffer.from('x'), name: 'notes.txt' }),
    });
    assert.equal(notJsonl.status, 400);
    assert.deepEqual(notJsonl.json, {
      error: {
        message: 'Invalid file format for Batch API. Must be .jsonl',
        type: 'invalid_request_error',
        param: 'file',
        code: null,
      },
    });
    assert.ok(!(await sdk(env.gw).files.list()).data.some((f) => f.filename === 'notes.txt'));
    const row = await logRow(env.gw, notJsonl.requestId);
    assert.deepEqual([row.request_type, row.status_code, row.provider], ['file_upload', 400, 'openai']);

    const badKey = await apiError(
      sdk(env.gw, env.gw.adminKey, { 'X-Svc-Provider-Key': 'sk-invalid-key' }).files.create({
        file: await toFile(Buffer.from('x'), 'x.txt'),
        purpose: 'user_data',
      }),
    );
    assert.equal(badKey.status, 401);
    assert.match(badKey.message, /Incorrect API key provided/);
  });

  test('X-Svc-Provider naming something without a files API is 400', async () => {
    for (const named of ['anthropic', env.providers.google, 'prov_does_not_exist']) {
      const r = await raw(env.gw, 'POST', '/alpha/v1/files', {
        body: form({ purpose: 'batch' }, { data: Buffer.from('{}\n'), name: 'a.jsonl' }),
        headers: { 'X-Svc-Provider': named },
      });
      assert.equal(r.status, 400, named);
      assert.deepEqual(
        [(r.json?.error as Json).type, (r.json?.error as Json).param],
        ['invalid_request_error', 'X-Svc-Provider'],
      );
    }
  });

  test('one list covers files in both places', async () => {
    const held = await sdk(env.gw, env.gw.adminKey, { 'X-Svc-Provider': 'switchyard' }).files.create({
      file: await toFile(Buffer.from('g'), 'both-g.txt'),
      purpose: 'vision',
    });
    const up = await sdk(env.gw).files.create({
      file: await toFile(Buffer.from('u'), 'both-u.txt'),
      purpose: 'vision',
    });
    const ids = (await sdk(env.gw).files.list({ purpose: 'vision', order: 'asc' })).data.map((f) => f.id);
    assert.deepEqual(ids.slice(-2), [held.id, up.id]);
  });

  test('each endpoint leaves one log row with its request_type; the upload row describes the file, never its bytes', async () => {
    const secret = 'content-that-must-not-be-logged';
    const up = await raw(env.gw, 'POST', '/alpha/v1/files', {
      body: form({ purpose: 'user_data' }, { data: Buffer.from(secret), name: 'logged.txt' }),
    });
    assert.equal(up.status, 200, up.text);
    const id = up.json?.id as string;
    const calls = [
      ['file_upload', up],
      ['file_list', await raw(env.gw, 'GET', '/alpha/v1/files?limit=1')],
      ['file_retrieve', await raw(env.gw, 'GET', `/alpha/v1/files/${id}`)],
      ['file_download', await raw(env.gw, 'GET', `/alpha/v1/files/${id}/content`)],
      ['file_delete', await raw(env.gw, 'DELETE', `/alpha/v1/files/${id}`)],
    ] as const;
    for (const [type, r] of calls) {
      assert.equal(r.status, 200, `${type}: ${r.text}`);
      const row = await logRow(env.gw, r.requestId);
      assert.deepEqual([row.request_type, row.status_code], [type, 200]);
      assert.doesNotMatch(JSON.stringify(row), new RegExp(secret), `${type} row keeps no content`);
    }
    const row = await logRow(env.gw, up.requestId);
    assert.deepEqual(row.request, { purpose: 'user_data', filename: 'logged.txt', bytes: secret.length });
    assert.deepEqual([row.provider, row.credential_id], ['openai', env.providers.openai]);
  });

  test('without a key: 401', async () => {
    for (const path of ['/alpha/v1/files', '/alpha/v1/files/file-x', '/alpha/v1/files/file-x/content']) {
      const r = await raw(env.gw, 'GET', path, { key: null });
      assert.equal(r.status, 401, path);
    }
  });
});

test('an org without an openai or azure-openai credential: the gateway keeps its uploads', async () => {
  const gw = await startGateway();
  try {
    const file = await sdk(gw).files.create({
      file: await toFile(Buffer.from('kept'), 'kept.txt'),
      purpose: 'user_data',
    });
    assert.match(file.id, /^file-sy/);
    assert.equal(await (await sdk(gw).files.content(file.id)).text(), 'kept');
  } finally {
    await gw.close();
  }
});
