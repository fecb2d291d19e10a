// The files API client against the fake upstream, on both vendors that have one: the multipart it
// builds is read back byte for byte, every answer (refusals included) comes back unread, and a call
// that reaches nobody throws the transport error.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { useFakeUpstream } from '../../../test/helpers/fake-upstream.ts';
import type { FilesTarget } from '../capabilities.ts';
import { UpstreamTransportError } from '../http.ts';
import { deleteFile, fileContent, filesUrl, getFile, listFiles, multipartFrame, uploadFile } from './files-api.ts';
import { AZURE_API_VERSION } from './vendors.ts';

const fake = useFakeUpstream();

const VENDORS = [
  ['openai', '/openai/v1'],
  ['azure-openai', '/azure'],
] as const;

/** Built inside each test: the fake's address is known only once it listens. */
const targetOf = ([vendor, prefix]: (typeof VENDORS)[number]): FilesTarget => ({
  vendor,
  credential: { apiKey: `sk-files-${vendor}`, baseUrl: `${fake.url}${prefix}` },
});

async function json(res: { body: { text(): Promise<string> } }): Promise<Record<string, unknown>> {
  return JSON.parse(await res.body.text()) as Record<string, unknown>;
}

async function bytesOf(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const b of body) parts.push(b);
  return Buffer.concat(parts);
}

test('urls: openai under {base}/files, azure under {base}/openai/files with the api version', () => {
  const openai: FilesTarget = { vendor: 'openai', credential: { apiKey: 'k', baseUrl: 'https://x.test/v1/' } };
  assert.equal(filesUrl(openai, '/f1/content'), 'https://x.test/v1/files/f1/content');
  assert.equal(filesUrl(openai, '', { purpose: 'batch', after: undefined }), 'https://x.test/v1/files?purpose=batch');
  const azure: FilesTarget = {
    vendor: 'azure-openai',
    credential: { apiKey: 'k', baseUrl: 'https://r.openai.azure.com' },
  };
  assert.equal(
    filesUrl(azure, '/f1', { limit: '5' }),
    `https://r.openai.azure.com/openai/files/f1?limit=5&api-version=${AZURE_API_VERSION}`,
  );
});

test('the multipart frame escapes what a header parameter cannot hold', () => {
  const { head, tail } = multipartFrame(
    { purpose: 'batch', filename: 'a"b\r\n.jsonl', contentType: 'text/plain', chunks: [], bytes: 0 },
    'BOUND',
  );
  assert.match(head.toString(), /filename="a%22b%0D%0A\.jsonl"/);
  assert.equal(tail.toString(), '\r\n--BOUND--\r\n');
});

for (const vendor of VENDORS) {
  describe(vendor[0], () => {
    test('upload in pieces, get, list, content byte for byte, delete', async () => {
      const t = targetOf(vendor);
      const data = randomBytes(300_000);
      const chunks = [data.subarray(0, 1), data.subarray(1, 65_536), data.subarray(65_536)];
      const up = await uploadFile(t, {
        purpose: 'user_data',
        filename: 'blob.bin',
        contentType: 'application/octet-stream',
        chunks,
        bytes: data.length,
        fields: [['expires_after[seconds]', '3600']],
      });
      assert.equal(up.status, 200);
      const file = await json(up);
      assert.equal(file.bytes, data.length);
      assert.equal(file.filename, 'blob.bin');
      assert.equal(typeof file.expires_at, 'number', 'the extra field reached the upstream');
      const id = file.id as string;

      const got = await getFile(t, id);
      assert.equal(got.status, 200);
      assert.equal((await json(got)).id, id);

      const list = await listFiles(t, { purpose: 'user_data', limit: 100 });
      assert.ok(((await json(list)).data as Array<{ id: string }>).some((f) => f.id === id));

      const content = await fileContent(t, id);
      assert.equal(content.status, 200);
      assert.ok(data.equals(await bytesOf(content.body)));

      const del = await deleteFile(t, id);
      assert.deepEqual(await json(del), { id, object: 'file', deleted: true });
      const gone = await getFile(t, id);
      assert.equal(gone.status, 404);
      await gone.body.dump();
    });
  });
}

test("an upstream refusal comes back as it was, with the upstream's status and body", async () => {
  const t = targetOf(VENDORS[0]);
  const res = await uploadFile(t, {
    purpose: 'batch',
    filename: 'not-jsonl.txt',
    contentType: 'text/plain',
    chunks: [Buffer.from('x')],
    bytes: 1,
  });
  assert.equal(res.status, 400);
  assert.match(((await json(res)).error as { message: string }).message, /Must be \.jsonl/);
  const bad = await getFile(
    { vendor: 'openai', credential: { apiKey: 'sk-bad-key', baseUrl: t.credential.baseUrl } },
    'f',
  );
  assert.equal(bad.status, 401);
  await bad.body.dump();
});

test('an upstream nobody answers at throws the transport error (502)', async () => {
  const t: FilesTarget = { vendor: 'openai', credential: { apiKey: 'sk-x', baseUrl: 'http://127.0.0.1:1/v1' } };
  await assert.rejects(getFile(t, 'file-1'), (err: unknown) => {
    assert.ok(err instanceof UpstreamTransportError);
    assert.equal(err.info.status, 502);
    return true;
  });
});
