// Files the gateway holds itself (`X-Svc-Provider: switchyard`), on both dialects: in the data dir
// with SQLite, in the database with PostgreSQL (where a second instance serves what the first took
// in). Binary content comes back byte for byte; a project key sees its project's files only; unknown
// ids are 404 in OpenAI's shape; bad uploads are 400 and leave nothing behind; list filters and pages.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { toFile } from 'openai';
import { dialects } from '../helpers/dialects.ts';
import { startGateway } from '../helpers/gateway.ts';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';
import { form, logRow, notFoundBody, project, raw, sdk } from './helpers.ts';

const HELD = { 'X-Svc-Provider': 'switchyard' };
/** Shared by the two instances of the PostgreSQL case: the credentials are sealed with it. */
const masterKey = Buffer.alloc(32, 9).toString('base64');

for (const d of await dialects()) {
  describe(`gateway-held files (${d.name})`, { skip: d.skip }, () => {
    let env: ProxyEnv;
    before(async () => {
      env = await startProxyEnv({ postgres: d.name === 'postgres', config: { masterKey } });
    });
    after(async () => {
      await env?.close();
    });
    const filesDir = () => join(env.gw.dataDir, 'files');
    const onDisk = () => (existsSync(filesDir()) ? readdirSync(filesDir()) : []);

    test('binary content across storage chunks comes back byte for byte, with its type and length', async () => {
      const client = sdk(env.gw, env.gw.adminKey, HELD);
      const data = randomBytes(3 * 1024 * 1024 + 4321);
      const { data: file, response } = await client.files
        .create({ file: await toFile(data, 'blob.bin', { type: 'application/x-thing' }), purpose: 'user_data' })
        .withResponse();
      assert.match(file.id, /^file-sy[0-9a-z]{26}$/);
      assert.equal(response.headers.get('x-svc-provider'), 'switchyard');
      assert.deepEqual(
        { bytes: file.bytes, filename: file.filename, purpose: file.purpose, status: file.status },
        { bytes: data.length, filename: 'blob.bin', purpose: 'user_data', status: 'processed' },
      );
      assert.equal(file.object, 'file');
      assert.equal(file.expires_at, null);
      assert.ok(Math.abs(file.created_at - Date.now() / 1000) < 60, 'created_at is unix seconds');
      // Where the bytes went: the data dir in embedded mode, the database with PostgreSQL.
      assert.equal(onDisk().includes(file.id), d.name === 'sqlite');

      const res = await client.files.content(file.id);
      assert.equal(res.headers.get('content-type'), 'application/x-thing');
      assert.equal(res.headers.get('content-length'), String(data.length));
      assert.ok(data.equals(Buffer.from(await res.arrayBuffer())), 'byte for byte');
      assert.deepEqual(await client.files.retrieve(file.id), file);
    });

    test('delete removes the record and the content; the id is then unknown', async () => {
      const client = sdk(env.gw, env.gw.adminKey, HELD);
      const file = await client.files.create({
        file: await toFile(Buffer.from('bye'), 'bye.txt'),
        purpose: 'assistants',
      });
      const del = await client.files.delete(file.id);
      assert.deepEqual(del, { id: file.id, object: 'file', deleted: true });
      assert.ok(!onDisk().includes(file.id));
      for (const [method, path] of [
        ['GET', `/alpha/v1/files/${file.id}`],
        ['GET', `/alpha/v1/files/${file.id}/content`],
        ['DELETE', `/alpha/v1/files/${file.id}`],
      ] as const) {
        const r = await raw(env.gw, method, path);
        assert.equal(r.status, 404, `${method} ${path}`);
        assert.deepEqual(r.json, notFoundBody(file.id));
      }
    });

    test('unknown ids are 404 in the alpha shape, never 500, and leave a log row', async () => {
      for (const id of ['file-nope', 'file-sy00000000000000000000000000', 'x'.repeat(90)]) {
        const r = await raw(env.gw, 'GET', `/alpha/v1/files/${id}/content`);
        assert.equal(r.status, 404);
        assert.deepEqual(r.json, notFoundBody(id));
      }
      const r = await raw(env.gw, 'DELETE', '/alpha/v1/files/file-nope');
      const row = await logRow(env.gw, r.requestId);
      assert.deepEqual([row.request_type, row.status_code], ['file_delete', 404]);
    });

    test('a bad purpose is 400 and keeps nothing; a missing file or purpose, a JSON body or a broken form is 400', async () => {
      const before = onDisk();
      const data = randomBytes(200_000);
      // The file part comes first, as SDKs send it: its bytes were stored before the purpose was read.
      const bad = await raw(env.gw, 'POST', '/alpha/v1/files', {
        body: form({ purpose: 'wallpaper' }, { data, name: 'x.bin' }),
        headers: HELD,
      });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.json, {
        error: {
          message:
            "Invalid value: 'wallpaper'. Supported values are: 'assistants', 'batch', 'fine-tune', 'vision', 'user_data'.",
          type: 'invalid_request_error',
          param: 'purpose',
          code: 'invalid_parameter',
        },
      });
      assert.deepEqual(onDisk(), before, 'the stored bytes were removed');
      const list = await sdk(env.gw).files.list({ purpose: 'wallpaper' });
      assert.equal(list.data.length, 0);

      const noFile = await raw(env.gw, 'POST', '/alpha/v1/files', { body: form({ purpose: 'batch' }), headers: HELD });
      assert.equal(noFile.status, 400);
      assert.equal((noFile.json?.error as { param: string }).param, 'file');
      const noPurpose = await raw(env.gw, 'POST', '/alpha/v1/files', {
        body: form({}, { data, name: 'x.bin' }),
        headers: HELD,
      });
      assert.equal((noPurpose.json?.error as { param: string }).param, 'purpose');
      const asJson = await raw(env.gw, 'POST', '/alpha/v1/files', {
        body: JSON.stringify({ purpose: 'batch' }),
        headers: { ...HELD, 'content-type': 'application/json' },
      });
      assert.equal(asJson.status, 400);
      assert.equal((asJson.json?.error as { type: string }).type, 'invalid_request_error');
      // A body cut inside the file part: its first bytes were being stored when the form broke off.
      const cut = await raw(env.gw, 'POST', '/alpha/v1/files', {
        body: `--XX\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n${'a'.repeat(100_000)}`,
        headers: { ...HELD, 'content-type': 'multipart/form-data; boundary=XX' },
      });
      assert.equal(cut.status, 400);
      assert.match((cut.json?.error as { message: string }).message, /^Malformed multipart\/form-data body/);
      assert.deepEqual(onDisk(), before, 'nothing of it was kept');
    });

    test("a project key sees its project's files only; an org-wide key sees them all", async () => {
      const a = await project(env.gw, `files-a-${d.name}`);
      const b = await project(env.gw, `files-b-${d.name}`);
      const mine = await sdk(env.gw, a.key, HELD).files.create({
        file: await toFile(Buffer.from('a'), 'a.txt'),
        purpose: 'user_data',
      });
      const orgWide = await sdk(env.gw, env.gw.adminKey, HELD).files.create({
        file: await toFile(Buffer.from('org'), 'org.txt'),
        purpose: 'user_data',
      });
      for (const [method, path] of [
        ['GET', `/alpha/v1/files/${mine.id}`],
        ['GET', `/alpha/v1/files/${mine.id}/content`],
        ['DELETE', `/alpha/v1/files/${mine.id}`],
      ] as const) {
        const r = await raw(env.gw, method, path, { key: b.key });
        assert.equal(r.status, 404, `project b: ${method} ${path}`);
        assert.deepEqual(r.json, notFoundBody(mine.id));
      }
      assert.deepEqual((await sdk(env.gw, b.key).files.list()).data, []);
      assert.deepEqual(
        (await sdk(env.gw, a.key).files.list()).data.map((f) => f.id),
        [mine.id],
        'not even the org-wide key’s own uploads',
      );
      const all = (await sdk(env.gw).files.list()).data.map((f) => f.id);
      assert.ok(all.includes(mine.id) && all.includes(orgWide.id));
      assert.equal(await (await sdk(env.gw).files.content(mine.id)).text(), 'a');
      assert.equal((await sdk(env.gw, a.key).files.retrieve(mine.id)).id, mine.id, 'still there for its owner');
    });

    test('list: purpose filter, limit and has_more, after, order, SDK auto-pagination, bad queries', async () => {
      const p = await project(env.gw, `files-list-${d.name}`);
      const client = sdk(env.gw, p.key, HELD);
      const made: string[] = [];
      for (const [i, purpose] of ['batch', 'vision', 'batch', 'user_data', 'batch'].entries()) {
        const f = await client.files.create({
          file: await toFile(Buffer.from(`${i}`), `f${i}.jsonl`),
          purpose: purpose as 'batch',
        });
        made.push(f.id);
      }
      const newest = [...made].reverse();
      const page = await raw(env.gw, 'GET', '/alpha/v1/files?limit=2', { key: p.key });
      assert.deepEqual(
        { ...page.json, data: (page.json?.data as Array<{ id: string }>).map((f) => f.id) },
        { object: 'list', data: newest.slice(0, 2), first_id: newest[0], last_id: newest[1], has_more: true },
      );
      const next = await client.files.list({ limit: 2, after: newest[1] });
      assert.deepEqual(
        next.data.map((f) => f.id),
        newest.slice(2, 4),
      );
      const last = await client.files.list({ limit: 2, after: newest[3] });
      assert.deepEqual([last.data.map((f) => f.id), last.has_more], [newest.slice(4), false]);
      const asc = await client.files.list({ order: 'asc' });
      assert.deepEqual(
        asc.data.map((f) => f.id),
        made,
      );
      const batch = await client.files.list({ purpose: 'batch' });
      assert.deepEqual(
        batch.data.map((f) => f.id),
        [made[4], made[2], made[0]],
      );
      const walked: string[] = [];
      for await (const f of client.files.list({ limit: 2 })) walked.push(f.id);
      assert.deepEqual(walked, newest, 'the SDK walks every page with `after`');

      for (const q of ['limit=0', 'limit=10001', 'limit=ten', 'order=sideways']) {
        const r = await raw(env.gw, 'GET', `/alpha/v1/files?${q}`, { key: p.key });
        assert.equal(r.status, 400, q);
        assert.equal((r.json?.error as { type: string }).type, 'invalid_request_error');
      }
    });

    if (d.name === 'postgres') {
      test('another instance on the same database serves the content', async () => {
        const file = await sdk(env.gw, env.gw.adminKey, HELD).files.create({
          file: await toFile(randomBytes(1_500_000), 'shared.bin'),
          purpose: 'user_data',
        });
        const original = Buffer.from(await (await sdk(env.gw).files.content(file.id)).arrayBuffer());
        const other = await startGateway({
          postgres: true,
          pgSchema: env.gw.pgSchema ?? undefined,
          config: { masterKey },
        });
        try {
          const res = await sdk(other).files.content(file.id);
          assert.ok(original.equals(Buffer.from(await res.arrayBuffer())));
        } finally {
          await other.close({ keepData: true });
        }
      });
    }
  });
}
