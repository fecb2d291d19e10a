// The audit log: append-only entries, one hash chain per organization. Nothing here updates or
// deletes an entry except the retention sweep, which moves the chain's anchor as it deletes so the
// oldest kept entry still verifies.
import { createHash } from 'node:crypto';
import { SqliteAdapter, type Transaction } from 'kysely';
import { newId } from '../util/ids.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';
import { getOrgRow } from './org-table.ts';
import type { Database } from './schema.ts';

export type AuditActorType = 'api_key' | 'user' | 'system';

export interface AuditActor {
  type: AuditActorType;
  id: string;
  name: string | null;
}

export interface NewAuditEntry {
  orgId: string;
  actor: AuditActor;
  action: string;
  resourceType: string;
  resourceId: string | null;
  /** JSON text (already redacted), or null when there was nothing. */
  before: string | null;
  after: string | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditRow {
  id: string;
  org_id: string;
  seq: number;
  at: string;
  actor_type: string;
  actor_id: string;
  actor_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  before: string | null;
  after: string | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  prev_hash: string;
  hash: string;
}

interface ChainHeadRow {
  org_id: string;
  seq: number;
  hash: string;
  anchor_seq: number;
  anchor_hash: string;
}

// A type alias, not an interface: kysely's withTables wants an index-signature-compatible shape.
type AuditTables = {
  audit_log: AuditRow;
  audit_chain_heads: ChainHeadRow;
};

export interface AuditFilters {
  orgId: string;
  actorId?: string;
  action?: string;
  resourceType?: string;
  resourceId?: string;
  /** ISO timestamps, inclusive start, exclusive end. */
  start?: string;
  end?: string;
}

export interface AuditVerifyResult {
  ok: boolean;
  checked: number;
  /** The first entry that does not match the chain; null when ok, or when entries were cut off the end. */
  first_bad_id: string | null;
}

/** The hash an organization's chain starts from before its first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * SHA-256 over a fixed-order JSON array of the entry's fields and its predecessor's hash. A fixed
 * array (not an object) keeps the bytes the same whatever order a driver returns columns in.
 */
export function auditHash(row: Omit<AuditRow, 'hash'>): string {
  const canonical = JSON.stringify([
    'v1',
    row.id,
    row.org_id,
    Number(row.seq),
    row.at,
    row.actor_type,
    row.actor_id,
    row.actor_name,
    row.action,
    row.resource_type,
    row.resource_id,
    row.before,
    row.after,
    row.request_id,
    row.ip,
    row.user_agent,
    row.prev_hash,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

export interface AuditLogStore {
  append(entry: NewAuditEntry): Promise<AuditRow>;
  get(orgId: string, id: string): Promise<AuditRow | undefined>;
  /** Newest first; `beforeId` continues after the last id of the previous page. */
  list(filters: AuditFilters, opts: { beforeId?: string; limit: number }): Promise<AuditRow[]>;
  verify(orgId: string): Promise<AuditVerifyResult>;
  /** Deletes entries older than `cutoffIso` in every organization; returns how many. */
  sweep(cutoffIso: string): Promise<number>;
}

const VERIFY_PAGE = 1000;

export function createAuditLogStore(db: Db): AuditLogStore {
  const adb = db.withTables<AuditTables>();
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;

  /** Creates the head if missing, then reads it under a lock held until the transaction ends. */
  async function lockHead(tx: Transaction<Database & AuditTables>, orgId: string): Promise<ChainHeadRow> {
    await tx
      .insertInto('audit_chain_heads')
      .values({ org_id: orgId, seq: 0, hash: GENESIS_HASH, anchor_seq: 0, anchor_hash: GENESIS_HASH })
      .onConflict((oc) => oc.column('org_id').doNothing())
      .execute();
    const q = tx.selectFrom('audit_chain_heads').selectAll().where('org_id', '=', orgId);
    // SQLite has no FOR UPDATE: its transactions begin immediate (store/db.ts), one writer at a time.
    const head = await (sqlite ? q : q.forUpdate()).executeTakeFirstOrThrow();
    return { ...head, seq: Number(head.seq), anchor_seq: Number(head.anchor_seq) };
  }

  return {
    async append(e) {
      return adb.transaction().execute(async (tx) => {
        const head = await lockHead(tx, e.orgId);
        const base: Omit<AuditRow, 'hash'> = {
          id: newId('aud'),
          org_id: e.orgId,
          seq: head.seq + 1,
          at: nowIso(),
          actor_type: e.actor.type,
          actor_id: e.actor.id,
          actor_name: e.actor.name,
          action: e.action,
          resource_type: e.resourceType,
          resource_id: e.resourceId,
          before: e.before,
          after: e.after,
          request_id: e.requestId,
          ip: e.ip,
          user_agent: e.userAgent,
          prev_hash: head.hash,
        };
        const row: AuditRow = { ...base, hash: auditHash(base) };
        await tx.insertInto('audit_log').values(row).execute();
        await tx
          .updateTable('audit_chain_heads')
          .set({ seq: row.seq, hash: row.hash })
          .where('org_id', '=', e.orgId)
          .execute();
        return row;
      });
    },

    get: getOrgRow(db, 'audit_log', (r: AuditRow) => ({ ...r, seq: Number(r.seq) })),

    async list(f, opts) {
      let q = adb.selectFrom('audit_log').selectAll().where('org_id', '=', f.orgId);
      if (f.actorId !== undefined) q = q.where('actor_id', '=', f.actorId);
      if (f.action !== undefined) q = q.where('action', '=', f.action);
      if (f.resourceType !== undefined) q = q.where('resource_type', '=', f.resourceType);
      if (f.resourceId !== undefined) q = q.where('resource_id', '=', f.resourceId);
      if (f.start !== undefined) q = q.where('at', '>=', f.start);
      if (f.end !== undefined) q = q.where('at', '<', f.end);
      if (opts.beforeId !== undefined) q = q.where('id', '<', opts.beforeId);
      const rows = await q.orderBy('id', 'desc').limit(opts.limit).execute();
      return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
    },

    async verify(orgId) {
      const head = await adb.selectFrom('audit_chain_heads').selectAll().where('org_id', '=', orgId).executeTakeFirst();
      if (!head) return { ok: true, checked: 0, first_bad_id: null };
      let prevHash = head.anchor_hash;
      let expectSeq = Number(head.anchor_seq) + 1;
      let checked = 0;
      for (;;) {
        const rows = await adb
          .selectFrom('audit_log')
          .selectAll()
          .where('org_id', '=', orgId)
          .where('seq', '>=', expectSeq)
          .orderBy('seq', 'asc')
          .limit(VERIFY_PAGE)
          .execute();
        for (const r of rows) {
          checked++;
          // A gap means entries were deleted; a changed field or link means an entry was edited.
          const { hash, ...rest } = r;
          if (Number(r.seq) !== expectSeq || r.prev_hash !== prevHash || auditHash(rest) !== hash) {
            return { ok: false, checked, first_bad_id: r.id };
          }
          prevHash = hash;
          expectSeq++;
        }
        if (rows.length < VERIFY_PAGE) break;
      }
      // Entries cut off the end leave no entry to name, only a head that no longer matches.
      const ok = Number(head.seq) === expectSeq - 1 && head.hash === prevHash;
      return { ok, checked, first_bad_id: null };
    },

    async sweep(cutoffIso) {
      const heads = await adb.selectFrom('audit_chain_heads').select('org_id').execute();
      let deleted = 0;
      for (const { org_id: orgId } of heads) {
        deleted += await adb.transaction().execute(async (tx) => {
          const head = await lockHead(tx, orgId);
          const last = await tx
            .selectFrom('audit_log')
            .select(['seq', 'hash'])
            .where('org_id', '=', orgId)
            .where('at', '<', cutoffIso)
            .orderBy('seq', 'desc')
            .limit(1)
            .executeTakeFirst();
          if (!last || Number(last.seq) <= head.anchor_seq) return 0;
          const res = await tx
            .deleteFrom('audit_log')
            .where('org_id', '=', orgId)
            .where('seq', '<=', last.seq)
            .executeTakeFirst();
          await tx
            .updateTable('audit_chain_heads')
            .set({ anchor_seq: Number(last.seq), anchor_hash: last.hash })
            .where('org_id', '=', orgId)
            .execute();
          return Number(res.numDeletedRows);
        });
      }
      return deleted;
    },
  };
}
