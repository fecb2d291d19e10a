// The gateway's record of stored responses (migration 120): which upstream credential and project
// each upstream response id belongs to. Times are epoch ms.
import type { DomainEvent } from '../ports/domain-events.ts';
import type { Db } from './db.ts';
import { liveRows } from './org-rows.ts';
import { appendEvents } from './outbox.ts';

export type ResponsesTable = {
  org_id: string;
  id: string;
  project_id: string | null;
  key_id: string;
  vendor: string;
  credential_id: string | null;
  byok: number;
  model: string;
  model_requested: string;
  request_id: string;
  background: number;
  status: string;
  created_at: number;
  recorded_at: number | null;
  deleted_at: number | null;
  /** The create call's traceparent (migration 200); null when tracing was off. */
  trace_link: string | null;
};

type ResponseTables = { responses: ResponsesTable };

export interface ResponseRecord {
  /** The upstream's response id. */
  id: string;
  orgId: string;
  projectId: string | null;
  keyId: string;
  vendor: string;
  /** Null when a BYOK key reached the vendor's default base without a stored credential. */
  credentialId: string | null;
  /** Made with the caller's own key: follow-ups need X-Svc-Provider-Key again (it is never stored). */
  byok: boolean;
  /** The upstream model (Azure: the deployment). */
  model: string;
  modelRequested: string;
  /** The create call's request id: its log row, written once the response is complete. */
  requestId: string;
  background: boolean;
  /** The last status the gateway saw. */
  status: string;
  createdAt: number;
  /** When the create call's log row was written; null while a background response runs. */
  recordedAt: number | null;
  /** A background response's create call (W3C traceparent), which its completion's trace links to. */
  traceLink?: string | null;
}

export interface ResponseStore {
  /** A second insert of the same id (a retried create) keeps the first row. */
  insert(r: ResponseRecord): Promise<void>;
  /** Not deleted; undefined when unknown. */
  get(orgId: string, id: string): Promise<ResponseRecord | undefined>;
  setStatus(orgId: string, id: string, status: string): Promise<void>;
  /**
   * Claims the one log row of the create call: true for the first caller only. `events` (a
   * background response's `response.completed`) commit with the claim, or not at all.
   */
  markRecorded(
    orgId: string,
    id: string,
    status: string,
    at: number,
    events?: readonly DomainEvent[],
  ): Promise<boolean>;
  markDeleted(orgId: string, id: string, at: number): Promise<boolean>;
}

function toRecord(r: ResponsesTable): ResponseRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    projectId: r.project_id,
    keyId: r.key_id,
    vendor: r.vendor,
    credentialId: r.credential_id,
    byok: Number(r.byok) === 1,
    model: r.model,
    modelRequested: r.model_requested,
    requestId: r.request_id,
    background: Number(r.background) === 1,
    status: r.status,
    createdAt: Number(r.created_at),
    recordedAt: r.recorded_at === null ? null : Number(r.recorded_at),
    traceLink: r.trace_link ?? null,
  };
}

export function createResponseStore(baseDb: Db): ResponseStore {
  const db = baseDb.withTables<ResponseTables>();
  const live = liveRows(baseDb, 'responses', toRecord);
  return {
    async insert(r) {
      await db
        .insertInto('responses')
        .values({
          org_id: r.orgId,
          id: r.id,
          project_id: r.projectId,
          key_id: r.keyId,
          vendor: r.vendor,
          credential_id: r.credentialId,
          byok: r.byok ? 1 : 0,
          model: r.model,
          model_requested: r.modelRequested,
          request_id: r.requestId,
          background: r.background ? 1 : 0,
          status: r.status,
          created_at: r.createdAt,
          recorded_at: r.recordedAt,
          deleted_at: null,
          trace_link: r.traceLink ?? null,
        })
        .onConflict((oc) => oc.columns(['org_id', 'id']).doNothing())
        .execute();
    },

    get: live.get,

    async setStatus(orgId, id, status) {
      await db.updateTable('responses').set({ status }).where('org_id', '=', orgId).where('id', '=', id).execute();
    },

    async markRecorded(orgId, id, status, at, events = []) {
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('responses')
          .set({ recorded_at: at, status })
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('recorded_at', 'is', null)
          .executeTakeFirst();
        const claimed = Number(r.numUpdatedRows) > 0;
        if (claimed) await appendEvents(tx, events);
        return claimed;
      });
    },

    markDeleted: live.markDeleted,
  };
}
