// Issue 38 item 8: gateway-held uploads had no quota, so one project could fill the gateway's disk
// or database. Each project now keeps at most SWITCHYARD_FILE_QUOTA_MB of gateway-held files; an
// upload past it is a 413 in the alpha error shape and leaves nothing behind, other projects keep
// their own room, and deleting a file makes room again. On both dialects (disk and database blobs).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { dialects } from '../helpers/dialects.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { form, project, raw } from './helpers.ts';

const MB = 1024 * 1024;
const HELD = { 'x-svc-provider': 'switchyard' };

for (const d of await dialects()) {
  describe(`gateway-held file quota per project (${d.name})`, { skip: d.skip }, () => {
    let gw: Gateway;
    before(async () => {
      gw = await startGateway({ postgres: d.name === 'postgres', config: { fileQuotaBytes: MB } });
    });
    after(async () => {
      await gw?.close();
    });

    const upload = (key: string, bytes: number) =>
      raw(gw, 'POST', '/alpha/v1/files', {
        key,
        headers: HELD,
        body: form({ purpose: 'user_data' }, { data: new Uint8Array(bytes).fill(97), name: 'a.txt' }),
      });

    test('an upload past the quota is refused with 413 and leaves nothing; other projects keep their room', async () => {
      const a = await project(gw, 'quota-a');
      const b = await project(gw, 'quota-b');
      const first = await upload(a.key, 600 * 1024);
      assert.equal(first.status, 200, first.text);

      const refused = await upload(a.key, 600 * 1024);
      assert.equal(refused.status, 413, refused.text);
      assert.deepEqual(Object.keys(refused.json?.error as object).sort(), ['code', 'message', 'param', 'type']);
      assert.deepEqual(
        { ...(refused.json?.error as Record<string, unknown>), message: undefined },
        { code: 'file_quota_exceeded', type: 'invalid_request_error', param: 'file', message: undefined },
      );
      assert.match(String((refused.json?.error as Record<string, unknown>).message), /1 MB quota/);
      const listed = await raw(gw, 'GET', '/alpha/v1/files', { key: a.key });
      assert.equal((listed.json?.data as unknown[]).length, 1, 'the refused upload left no file');

      // Another project has its own quota.
      assert.equal((await upload(b.key, 600 * 1024)).status, 200);
      // A small file still fits beside the first.
      assert.equal((await upload(a.key, 100 * 1024)).status, 200);

      // Deleting makes room again.
      const id = String(first.json?.id);
      assert.equal((await raw(gw, 'DELETE', `/alpha/v1/files/${id}`, { key: a.key })).status, 200);
      assert.equal((await upload(a.key, 600 * 1024)).status, 200);
    });

    test('a file larger than the whole quota is refused as it streams in', async () => {
      const c = await project(gw, 'quota-c');
      const big = await upload(c.key, 3 * MB);
      assert.equal(big.status, 413, big.text);
      const listed = await raw(gw, 'GET', '/alpha/v1/files', { key: c.key });
      assert.deepEqual(listed.json?.data, []);
    });
  });
}
