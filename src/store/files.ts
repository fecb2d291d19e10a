// The gateway's record of every file a caller can address through /alpha/v1/files (migration 100),
// wherever its bytes live: this is what routes get, delete and content to the right place, and what
// list answers from. Upstream files keep the vendor's id, so the key is (org, id). Times are epoch ms.
import type { Db } from './db.ts';
import { liveRows } from './org-rows.ts';

export type FilesTable = {
  org_id: string;
  id: string;
  project_id: string | null;
  purpose: string;
  filename: string;
  bytes: number;
  content_type: string;
  location: string;
  storage: string | null;
  credential_id: string | null;
  vendor: string | null;
  origin: string;
  status: string;
  created_at: number;
  expires_at: number | null;
  deleted_at: number | null;
};

type FileTables = { files: FilesTable };

export interface FileRecord {
  id: string;
  orgId: string;
  /** The project of the key that made it; null when an org-wide key did. */
  projectId: string | null;
  purpose: string;
  filename: string;
  bytes: number;
  contentType: string;
  location: 'gateway' | 'upstream';
  /** Where a gateway-held file's bytes are; null upstream. */
  storage: 'disk' | 'db' | null;
  /** The credential an upstream file was sent through (null for gateway-held files and BYOK without one). */
  credentialId: string | null;
  /** The upstream vendor id; null for gateway-held files. */
  vendor: string | null;
  origin: 'upload' | 'batch_output' | 'batch_error';
  status: string;
  createdAt: number;
  expiresAt: number | null;
}

export interface FileListQuery {
  /** Null lists the whole org; a project id lists that project's files only. */
  projectId: string | null;
  purpose?: string;
  limit: number;
  order: 'asc' | 'desc';
  /** A file id: the page starts after it, in the chosen order. */
  after?: string;
}

export interface FileStore {
  insert(f: FileRecord): Promise<void>;
  /** Not deleted; undefined when unknown. */
  get(orgId: string, id: string): Promise<FileRecord | undefined>;
  /**
   * Live files by creation time (ties by id), at most `limit`. A cursor the org never had gives an
   * empty page; one deleted since still marks its place.
   */
  list(orgId: string, q: FileListQuery): Promise<FileRecord[]>;
  /** False when there was no live file to delete. */
  markDeleted(orgId: string, id: string, at: number): Promise<boolean>;
  /** Bytes of the live gateway-held files of one project (null: those of org-wide keys). */
  heldBytes(orgId: string, projectId: string | null): Promise<number>;
}

function toRecord(r: FilesTable): FileRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    projectId: r.project_id,
    purpose: r.purpose,
    filename: r.filename,
    bytes: Number(r.bytes),
    contentType: r.content_type,
    location: r.location as FileRecord['location'],
    storage: r.storage as FileRecord['storage'],
    credentialId: r.credential_id,
    vendor: r.vendor,
    origin: r.origin as FileRecord['origin'],
    status: r.status,
    createdAt: Number(r.created_at),
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  };
}

export function createFileStore(baseDb: Db): FileStore {
  const db = baseDb.withTables<FileTables>();
  const live = liveRows(baseDb, 'files', toRecord);
  return {
    async insert(f) {
      await db
        .insertInto('files')
        .values({
          org_id: f.orgId,
          id: f.id,
          project_id: f.projectId,
          purpose: f.purpose,
          filename: f.filename,
          bytes: f.bytes,
          content_type: f.contentType,
          location: f.location,
          storage: f.storage,
          credential_id: f.credentialId,
          vendor: f.vendor,
          origin: f.origin,
          status: f.status,
          created_at: f.createdAt,
          expires_at: f.expiresAt,
          deleted_at: null,
        })
        .execute();
    },

    get: live.get,

    async list(orgId, q) {
      let cursor: { created_at: number; id: string } | undefined;
      if (q.after !== undefined) {
        cursor = await db
          .selectFrom('files')
          .select(['created_at', 'id'])
          .where('org_id', '=', orgId)
          .where('id', '=', q.after)
          .executeTakeFirst();
        if (cursor === undefined) return [];
      }
      let query = db.selectFrom('files').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
      if (q.projectId !== null) query = query.where('project_id', '=', q.projectId);
      if (q.purpose !== undefined) query = query.where('purpose', '=', q.purpose);
      if (cursor !== undefined) {
        const at = Number(cursor.created_at);
        const id = cursor.id;
        const cmp = q.order === 'desc' ? '<' : '>';
        query = query.where((eb) =>
          eb.or([eb('created_at', cmp, at), eb.and([eb('created_at', '=', at), eb('id', cmp, id)])]),
        );
      }
      const rows = await query.orderBy('created_at', q.order).orderBy('id', q.order).limit(q.limit).execute();
      return rows.map(toRecord);
    },

    markDeleted: live.markDeleted,

    async heldBytes(orgId, projectId) {
      const r = await db
        .selectFrom('files')
        .select((eb) => eb.fn.sum<number | string | null>('bytes').as('bytes'))
        .where('org_id', '=', orgId)
        .where('project_id', projectId === null ? 'is' : '=', projectId)
        .where('location', '=', 'gateway')
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(r?.bytes ?? 0);
    },
  };
}
