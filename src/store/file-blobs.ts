// The bytes of gateway-held files. Embedded mode keeps them in the data dir, one file each; with
// PostgreSQL they go into `file_chunks` (migration 100) so that every instance can serve any of
// them. Both take content as it arrives and hand it back as a stream: neither ever holds a whole
// file in memory (the database one holds one chunk).
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { monotonicFactory } from 'ulid';
import { pooledPrng } from '../util/ids.ts';
import type { Db, Dialect } from './db.ts';
import type { FileRecord, FileStore } from './files.ts';

type FileChunksTable = { file_id: string; seq: number; data: Uint8Array };
type ChunkTables = { file_chunks: FileChunksTable };

/** Rows of `file_chunks` hold this much each (the last one less). */
export const DB_CHUNK_BYTES = 1024 * 1024;

export type FileContent = AsyncIterable<Uint8Array> | Uint8Array;

export interface FileBlobs {
  readonly storage: 'disk' | 'db';
  /** Stores the content under the id (replacing any earlier content of that id); resolves with its size. */
  write(fileId: string, content: FileContent): Promise<number>;
  /** The content as a stream; it fails (ENOENT on disk) when there is none. */
  open(fileId: string): Readable;
  /** Removes the content; no error when there was none. */
  remove(fileId: string): Promise<void>;
}

const nextUlid = monotonicFactory(pooledPrng);

/** Ids of gateway-held files: `file-sy` + a sortable ulid, so they read like the vendor's `file-...` ids. */
export function newFileId(): string {
  return `file-sy${nextUlid().toLowerCase()}`;
}

function sourceOf(content: FileContent): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  return content instanceof Uint8Array ? [content] : content;
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** One file per id under `dir`, written to `<id>.partial` and renamed: a crash never leaves half a file under the id. */
export function diskFileBlobs(dir: string): FileBlobs {
  const pathOf = (fileId: string): string => {
    // Ids come from the gateway's records, never straight from a URL; this guards the path anyway.
    if (!/^[A-Za-z0-9_-]+$/.test(fileId)) throw new Error(`not a file id: ${fileId}`);
    return join(dir, fileId);
  };
  return {
    storage: 'disk',
    async write(fileId, content) {
      const path = pathOf(fileId);
      const partial = `${path}.partial`;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      let bytes = 0;
      const source = sourceOf(content);
      async function* counted(): AsyncGenerator<Uint8Array> {
        for await (const chunk of source) {
          bytes += chunk.byteLength;
          yield chunk;
        }
      }
      // Opened before anything is written (owner-only like the database: uploads are caller data),
      // so a source that fails at once cannot leave a stream still opening the partial after it was
      // removed.
      const handle = await open(partial, 'w', 0o600);
      try {
        await pipeline(counted(), handle.createWriteStream());
        await rename(partial, path);
      } catch (err) {
        await handle.close().catch(() => {});
        await rm(partial, { force: true });
        throw err;
      }
      return bytes;
    },
    open(fileId) {
      return createReadStream(pathOf(fileId));
    },
    async remove(fileId) {
      await rm(pathOf(fileId), { force: true });
    },
  };
}

/** Fixed-size rows of `file_chunks`, read back one row per stream read. */
export function dbFileBlobs(baseDb: Db): FileBlobs {
  const db = baseDb.withTables<ChunkTables>();
  const remove = async (fileId: string): Promise<void> => {
    await db.deleteFrom('file_chunks').where('file_id', '=', fileId).execute();
  };
  return {
    storage: 'db',
    async write(fileId, content) {
      await remove(fileId);
      let seq = 0;
      let bytes = 0;
      let buf = Buffer.allocUnsafe(DB_CHUNK_BYTES);
      let fill = 0;
      const flush = async (): Promise<void> => {
        if (fill === 0) return;
        await db
          .insertInto('file_chunks')
          .values({ file_id: fileId, seq, data: buf.subarray(0, fill) })
          .execute();
        seq += 1;
        // A fresh buffer: the driver may still refer to the one it was handed.
        buf = Buffer.allocUnsafe(DB_CHUNK_BYTES);
        fill = 0;
      };
      try {
        for await (const chunk of sourceOf(content)) {
          bytes += chunk.byteLength;
          let at = 0;
          while (at < chunk.byteLength) {
            const n = Math.min(DB_CHUNK_BYTES - fill, chunk.byteLength - at);
            buf.set(chunk.subarray(at, at + n), fill);
            fill += n;
            at += n;
            if (fill === DB_CHUNK_BYTES) await flush();
          }
        }
        await flush();
      } catch (err) {
        await remove(fileId).catch(() => {});
        throw err;
      }
      return bytes;
    },
    open(fileId) {
      let seq = 0;
      return new Readable({
        read() {
          db.selectFrom('file_chunks')
            .select('data')
            .where('file_id', '=', fileId)
            .where('seq', '=', seq)
            .executeTakeFirst()
            .then(
              (row) => {
                if (row === undefined) {
                  this.push(null);
                  return;
                }
                seq += 1;
                this.push(asBuffer(row.data));
              },
              (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
            );
        },
      });
    },
    remove,
  };
}

/** Disk in embedded (SQLite) mode, the database with PostgreSQL so that every instance serves every file. */
export function createFileBlobs(db: Db, dialect: Dialect, dataDir: string): FileBlobs {
  return dialect === 'postgres' ? dbFileBlobs(db) : diskFileBlobs(join(dataDir, 'files'));
}

export type HeldFileMeta = Omit<
  FileRecord,
  'id' | 'bytes' | 'location' | 'storage' | 'credentialId' | 'vendor' | 'status'
>;

/**
 * Keeps a file in the gateway: the content first, then its row, so a crash in between leaves an
 * orphan blob and never a row without content.
 */
export async function holdFile(
  files: FileStore,
  blobs: FileBlobs,
  meta: HeldFileMeta,
  content: FileContent,
  id: string = newFileId(),
): Promise<FileRecord> {
  const bytes = await blobs.write(id, content);
  const record: FileRecord = {
    ...meta,
    id,
    bytes,
    location: 'gateway',
    storage: blobs.storage,
    credentialId: null,
    vendor: null,
    status: 'processed',
  };
  try {
    await files.insert(record);
  } catch (err) {
    await blobs.remove(id).catch(() => {});
    throw err;
  }
  return record;
}
