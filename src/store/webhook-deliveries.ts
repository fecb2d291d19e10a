// Webhook deliveries: one per (event, endpoint), each with its attempt history. Every write that
// creates work for the delivery path (fan-out, test, replay) enqueues the delivery's job in the same
// transaction, so a crash can leave neither a delivery without its job nor a job without its row.
// The job's idempotency key is the delivery id: at most one unfinished job per delivery.
import { sql } from 'kysely';
import type { DomainEvent } from '../ports/domain-events.ts';
import { newId } from '../util/ids.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';
import { jobRow, type NewJob } from './jobs.ts';
import { eventRow } from './outbox.ts';
import type { DeliveryStatus, DomainEventsTable, WebhookDeliveriesTable, WebhookTables } from './webhooks-schema.ts';

export type { DeliveryStatus } from './webhooks-schema.ts';

export interface DeliveryRecord {
  id: string;
  orgId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  responseStatus: number | null;
  responseBody: string | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

export interface DeliveryDetail extends DeliveryRecord {
  /** The body sent on every attempt: JSON text of `{type, timestamp, data}`. */
  body: string;
  attempts: DeliveryAttempt[];
}

export interface StoredEvent {
  id: string;
  orgId: string;
  type: string;
  body: string;
  createdAt: string;
}

/** The job that delivers one delivery; the store fills in nothing but what it returns. */
export type DeliveryJob = (deliveryId: string) => NewJob;

export interface DeliveryFilter {
  endpointId?: string;
  status?: DeliveryStatus;
  eventType?: string;
  /** Newest first: the page after this id. */
  beforeId?: string;
  limit: number;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: string | null;
}

export interface WebhookDeliveryStore {
  getEvent(eventId: string): Promise<StoredEvent | undefined>;
  /** One delivery and job per endpoint; an (event, endpoint) pair that has one already is skipped. */
  fanOut(event: StoredEvent, endpointIds: readonly string[], job: DeliveryJob): Promise<string[]>;
  /** A synthetic event for one endpoint only (POST .../test), with its delivery and job. */
  createDirect(event: DomainEvent, endpointId: string, job: DeliveryJob): Promise<DeliveryRecord>;
  get(orgId: string, id: string): Promise<DeliveryDetail | undefined>;
  /** The delivery and its body, for the delivery path (which has no org at hand). */
  forSend(id: string): Promise<{ delivery: DeliveryRecord; body: string; traceLink: string | null } | undefined>;
  list(orgId: string, filter: DeliveryFilter): Promise<DeliveryRecord[]>;
  /** Appends attempt `attempt_count + 1` and sets the delivery's state; returns the attempt number. */
  recordAttempt(id: string, attempt: Omit<DeliveryAttempt, 'attempt'>, outcome: AttemptOutcome): Promise<number>;
  /**
   * Deletes settled deliveries (and their attempts) created before `before`, then the events that
   * no delivery refers to any more. Pending deliveries stay whatever their age.
   */
  purge(before: string): Promise<{ deliveries: number; events: number }>;
  /** Back to `pending` with a job due now (an unfinished one is brought forward instead). */
  replay(orgId: string, id: string, job: DeliveryJob): Promise<DeliveryRecord | undefined>;
}

function toRecord(r: WebhookDeliveriesTable): DeliveryRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attemptCount: Number(r.attempt_count),
    responseStatus: r.response_status === null ? null : Number(r.response_status),
    responseBody: r.response_body,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deliveredAt: r.delivered_at,
  };
}

const toEvent = (r: DomainEventsTable): StoredEvent => ({
  id: r.id,
  orgId: r.org_id,
  type: r.type,
  body: r.body,
  createdAt: r.created_at,
});

function deliveryRow(event: StoredEvent, endpointId: string): WebhookDeliveriesTable {
  const now = nowIso();
  return {
    id: newId('whd'),
    org_id: event.orgId,
    endpoint_id: endpointId,
    event_id: event.id,
    event_type: event.type,
    status: 'pending',
    attempt_count: 0,
    response_status: null,
    response_body: null,
    last_error: null,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
    delivered_at: null,
  };
}

export function createWebhookDeliveryStore(baseDb: Db): WebhookDeliveryStore {
  const db = baseDb.withTables<WebhookTables>();

  const getEvent = async (eventId: string) => {
    const r = await db.selectFrom('domain_events').selectAll().where('id', '=', eventId).executeTakeFirst();
    return r ? toEvent(r) : undefined;
  };
  const withBody = () =>
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('domain_events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select('e.body');
  const getRow = async (id: string) => {
    const r = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toRecord(r) : undefined;
  };

  return {
    getEvent,

    async fanOut(event, endpointIds, job) {
      if (endpointIds.length === 0) return [];
      return db.transaction().execute(async (tx) => {
        const created: string[] = [];
        for (const endpointId of endpointIds) {
          const inserted = await tx
            .insertInto('webhook_deliveries')
            .values(deliveryRow(event, endpointId))
            .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
            .returning('id')
            .executeTakeFirst();
          if (inserted) created.push(inserted.id);
        }
        if (created.length > 0) await tx.insertInto('jobs').values(created.map(job).map(jobRow)).execute();
        return created;
      });
    },

    async createDirect(event, endpointId, job) {
      const ev = eventRow(event);
      const row = deliveryRow(toEvent(ev), endpointId);
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('domain_events').values(ev).execute();
        await tx.insertInto('webhook_deliveries').values(row).execute();
        await tx
          .insertInto('jobs')
          .values(jobRow(job(row.id)))
          .execute();
      });
      return toRecord(row);
    },

    async get(orgId, id) {
      const r = await withBody().where('d.org_id', '=', orgId).where('d.id', '=', id).executeTakeFirst();
      if (!r) return undefined;
      const attempts = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', '=', id)
        .orderBy('attempt')
        .execute();
      return {
        ...toRecord(r),
        body: r.body,
        attempts: attempts.map((a) => ({
          attempt: Number(a.attempt),
          startedAt: a.started_at,
          durationMs: Number(a.duration_ms),
          responseStatus: a.response_status === null ? null : Number(a.response_status),
          responseBody: a.response_body,
          error: a.error,
        })),
      };
    },

    async forSend(id) {
      const r = await withBody().select('e.trace_link').where('d.id', '=', id).executeTakeFirst();
      return r ? { delivery: toRecord(r), body: r.body, traceLink: r.trace_link } : undefined;
    },

    async list(orgId, f) {
      let q = db.selectFrom('webhook_deliveries').selectAll().where('org_id', '=', orgId);
      if (f.endpointId !== undefined) q = q.where('endpoint_id', '=', f.endpointId);
      if (f.status !== undefined) q = q.where('status', '=', f.status);
      if (f.eventType !== undefined) q = q.where('event_type', '=', f.eventType);
      if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
      return (await q.orderBy('id', 'desc').limit(f.limit).execute()).map(toRecord);
    },

    async recordAttempt(id, a, outcome) {
      return db.transaction().execute(async (tx) => {
        // Writing first takes SQLite's write lock under busy_timeout (see routing-configs.ts).
        const bumped = await tx
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            attempt_count: eb('attempt_count', '+', 1),
            status: outcome.status,
            response_status: a.responseStatus,
            response_body: a.responseBody,
            last_error: a.error,
            next_attempt_at: outcome.nextAttemptAt,
            updated_at: nowIso(),
            ...(outcome.status === 'delivered' ? { delivered_at: nowIso() } : {}),
          }))
          .where('id', '=', id)
          .returning('attempt_count')
          .executeTakeFirst();
        if (!bumped) throw new Error(`webhook delivery ${id} is gone`);
        const attempt = Number(bumped.attempt_count);
        await tx
          .insertInto('webhook_attempts')
          .values({
            delivery_id: id,
            attempt,
            started_at: a.startedAt,
            duration_ms: Math.round(a.durationMs),
            response_status: a.responseStatus,
            response_body: a.responseBody,
            error: a.error,
          })
          .execute();
        return attempt;
      });
    },

    async purge(before) {
      const old = db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('created_at', '<', before)
        .where('status', '!=', 'pending');
      await db.deleteFrom('webhook_attempts').where('delivery_id', 'in', old).execute();
      const deliveries = await db
        .deleteFrom('webhook_deliveries')
        .where('created_at', '<', before)
        .where('status', '!=', 'pending')
        .executeTakeFirst();
      const events = await db
        .deleteFrom('domain_events')
        .where('created_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'domain_events.id'),
            ),
          ),
        )
        .executeTakeFirst();
      return { deliveries: Number(deliveries.numDeletedRows), events: Number(events.numDeletedRows) };
    },

    async replay(orgId, id, job) {
      const replayed = await db.transaction().execute(async (tx) => {
        const now = Date.now();
        const row = await tx
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', next_attempt_at: new Date(now).toISOString(), updated_at: nowIso() })
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .returning('id')
          .executeTakeFirst();
        if (!row) return false;
        const spec = jobRow(job(id));
        // A retry already waiting is simply made due now; a running one will record its own outcome.
        const brought = await tx
          .updateTable('jobs')
          .set({ run_at: now })
          .where('kind', '=', spec.kind)
          .where('idempotency_key', '=', id)
          .where('status', '=', 'queued')
          .executeTakeFirst();
        if (Number(brought.numUpdatedRows) === 0) {
          await tx
            .insertInto('jobs')
            .values({ ...spec, run_at: now })
            .onConflict((oc) =>
              oc.columns(['kind', 'idempotency_key']).where(sql<boolean>`status IN ('queued', 'running')`).doNothing(),
            )
            .execute();
        }
        return true;
      });
      return replayed ? getRow(id) : undefined;
    },
  };
}
