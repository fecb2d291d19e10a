// The file store and the blob stores on both dialects: records by org and project, list order and
// cursors, soft delete; content on disk and in database chunks (crossing chunk boundaries, empty,
// replaced, removed); and holdFile's order: content before row.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  DB_CHUNK_BYTES,
  dbFileBlobs,
  diskFileBlobs,
  type FileBlobs,
  holdFile,
  newFileId,
} from '../../src/store/file-blobs.ts';
import type { FileRecord, FileStore } from '../../src/store/files.ts';
import { dialects, type TestDb } from '../helpers/dialects.ts';

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const b of stream) parts.push(b as Buffer);
  return Buffer.concat(parts);
}

function record(over: Partial<FileRecord> & Pick<FileRecord, 'id' | 'createdAt'>): FileRecord {
  return {
    orgId: 'org_a',
    projectId: 'proj_1',
    purpose: 'batch',
    filename: 'in.jsonl',
    bytes: 10,
    contentType: 'application/jsonl',
    location: 'upstream',
    storage: null,
    credentialId: 'prov_1',
    vendor: 'openai',
    origin: 'upload',
    status: 'processed',
    expiresAt: null,
    ...over,
  };
}

async function* pieces(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

for (const d of await dialects()) {
  describe(`file store (${d.name})`, { skip: d.skip }, () => {
    let db: TestDb;
    let files: FileStore;
    before(async () => {
      db = await d.open();
      files = db.handle.stores.files;
    });
    after(async () => {
      await db?.dispose();
    });

    test('insert, get by org, soft delete', async () => {
      const f = record({ id: 'file-get1', createdAt: 1_000, expiresAt: 9_000, bytes: 5_000_000_000 });
      await files.insert(f);
      assert.deepEqual(await files.get('org_a', 'file-get1'), f);
      assert.equal(await files.get('org_b', 'file-get1'), undefined, 'another org does not see it');
      assert.equal(await files.markDeleted('org_b', 'file-get1', 2_000), false);
      assert.equal(await files.markDeleted('org_a', 'file-get1', 2_000), true);
      assert.equal(await files.get('org_a', 'file-get1'), undefined);
      assert.equal(await files.markDeleted('org_a', 'file-get1', 3_000), false, 'deleted once');
    });

    test('list: newest first or oldest first, ties by id, cursors, project and purpose filters', async () => {
      const org = 'org_list';
      const rows = [
        record({ orgId: org, id: 'file-a', createdAt: 100 }),
        record({ orgId: org, id: 'file-c', createdAt: 200, projectId: 'proj_2' }),
        record({ orgId: org, id: 'file-b', createdAt: 200, purpose: 'vision' }),
        record({ orgId: org, id: 'file-d', createdAt: 300, projectId: null }),
        record({ orgId: org, id: 'file-e', createdAt: 400 }),
      ];
      for (const r of rows) await files.insert(r);
      const ids = async (q: Partial<Parameters<FileStore['list']>[1]>) =>
        (await files.list(org, { projectId: null, limit: 100, order: 'desc', ...q })).map((f) => f.id);
      assert.deepEqual(await ids({}), ['file-e', 'file-d', 'file-c', 'file-b', 'file-a']);
      assert.deepEqual(await ids({ order: 'asc' }), ['file-a', 'file-b', 'file-c', 'file-d', 'file-e']);
      assert.deepEqual(await ids({ limit: 2 }), ['file-e', 'file-d']);
      assert.deepEqual(await ids({ after: 'file-c' }), ['file-b', 'file-a'], 'a tie on created_at is split by id');
      assert.deepEqual(await ids({ order: 'asc', after: 'file-b', limit: 2 }), ['file-c', 'file-d']);
      assert.deepEqual(await ids({ projectId: 'proj_1' }), ['file-e', 'file-b', 'file-a']);
      assert.deepEqual(await ids({ purpose: 'vision' }), ['file-b']);
      assert.deepEqual(await ids({ after: 'file-unknown' }), [], 'a cursor the org never had');
      await files.markDeleted(org, 'file-c', 500);
      assert.deepEqual(await ids({ after: 'file-c' }), ['file-b', 'file-a'], 'a deleted cursor still marks its place');
      assert.deepEqual(await ids({ order: 'asc' }), ['file-a', 'file-b', 'file-d', 'file-e']);
    });
  });

  describe(`file blobs (${d.name})`, { skip: d.skip }, () => {
    let db: TestDb;
    const stores: Array<[string, () => FileBlobs]> = [
      ['disk', () => diskFileBlobs(join(db.config.dataDir, 'files'))],
      ['db', () => dbFileBlobs(db.handle.db)],
    ];
    before(async () => {
      db = await d.open();
    });
    after(async () => {
      await db?.dispose();
    });

    for (const [kind, make] of stores) {
      test(`${kind}: content across chunk boundaries comes back byte for byte; replace, empty, remove`, async () => {
        const blobs = make();
        assert.equal(blobs.storage, kind);
        const id = newFileId();
        assert.match(id, /^file-sy[0-9a-z]{26}$/);
        const data = randomBytes(2 * DB_CHUNK_BYTES + 12_345);
        assert.equal(await blobs.write(id, pieces(data, 100_000)), data.length);
        assert.ok(data.equals(await readAll(blobs.open(id))));

        const smaller = randomBytes(10);
        assert.equal(await blobs.write(id, smaller), 10, 'a whole buffer is content too');
        assert.ok(smaller.equals(await readAll(blobs.open(id))), 'writing again replaces');

        const empty = newFileId();
        assert.equal(await blobs.write(empty, pieces(Buffer.alloc(0), 1)), 0);
        assert.equal((await readAll(blobs.open(empty))).length, 0);

        await blobs.remove(id);
        await blobs.remove(id);
        if (kind === 'disk') await assert.rejects(readAll(blobs.open(id)), /ENOENT/);
        else assert.equal((await readAll(blobs.open(id))).length, 0);
      });
    }

    test('disk: a write that fails leaves neither the file nor its partial', async () => {
      const dir = join(db.config.dataDir, 'files');
      const blobs = diskFileBlobs(dir);
      const id = newFileId();
      async function* broken(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('some');
        throw new Error('caller went away');
      }
      await assert.rejects(blobs.write(id, broken()), /caller went away/);
      assert.ok(!existsSync(join(dir, id)));
      assert.ok(!readdirSync(dir).some((n) => n.startsWith(id)), 'no partial left');
    });

    test('holdFile writes the content, then the row; a failed write leaves no row', async () => {
      const files = db.handle.stores.files;
      const blobs = dbFileBlobs(db.handle.db);
      const meta = {
        orgId: 'org_hold',
        projectId: null,
        purpose: 'batch_output',
        filename: 'out.jsonl',
        contentType: 'application/jsonl',
        origin: 'batch_output' as const,
        createdAt: Date.now(),
        expiresAt: null,
      };
      const held = await holdFile(files, blobs, meta, Buffer.from('{"id":1}\n'));
      assert.equal(held.location, 'gateway');
      assert.equal(held.storage, 'db');
      assert.equal(held.bytes, 9);
      assert.deepEqual(await files.get('org_hold', held.id), held);
      assert.equal((await readAll(blobs.open(held.id))).toString(), '{"id":1}\n');

      async function* broken(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('x');
        throw new Error('disk full');
      }
      await assert.rejects(holdFile(files, blobs, meta, broken()), /disk full/);
      const listed = await files.list('org_hold', { projectId: null, limit: 10, order: 'asc' });
      assert.deepEqual(
        listed.map((f) => f.id),
        [held.id],
        'no row without content',
      );
    });
  });
}
