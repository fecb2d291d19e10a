// The transactional outbox. A store that changes something users can subscribe to calls
// `appendEvents` with its own transaction: the event row and a job to fan it out commit together
// with the change, or not at all. The fan-out itself (which endpoints, how to deliver) belongs to
// the webhooks feature, which registers the handler for EVENT_DISPATCH_JOB.
import type { Kysely } from 'kysely';
import type { DomainEvent } from '../ports/domain-events.ts';
import { newId } from '../util/ids.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';
import { jobRow } from './jobs.ts';
import type { Database } from './schema.ts';
import type { DomainEventsTable, WebhookTables } from './webhooks-schema.ts';

/** One job per event: `{event_id}`. */
export const EVENT_DISPATCH_JOB = 'events.dispatch';

/**
 * Any Kysely instance or transaction over our database, whichever table map its store views it
 * through (kysely's generics are invariant, so no one parameter type accepts them all).
 */
type KyselyHandle = Pick<Kysely<Database>, 'isTransaction'>;

/** Writes the events and their dispatch jobs with `q`, normally the caller's open transaction. */
export async function appendEvents(q: KyselyHandle, events: readonly DomainEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  // Stores see the database through their own table maps (`withTables`); all of them are views of
  // the one migrated schema, so widening to the outbox's map is sound.
  const db = q as unknown as Kysely<Database & WebhookTables>;
  const rows = events.map(eventRow);
  await db.insertInto('domain_events').values(rows).execute();
  await db
    .insertInto('jobs')
    .values(rows.map((r) => jobRow({ kind: EVENT_DISPATCH_JOB, payload: { event_id: r.id } })))
    .execute();
  return rows.map((r) => r.id);
}

/** An event's row; its body is what receivers get, byte for byte. */
export function eventRow(e: DomainEvent): DomainEventsTable {
  const at = nowIso();
  return {
    id: newId('evt'),
    org_id: e.orgId,
    type: e.type,
    body: JSON.stringify({ type: e.type, timestamp: at, data: e.data }),
    created_at: at,
    trace_link: e.traceLink ?? null,
  };
}

/** For events that describe no stored write (a breaker opening): their own small transaction. */
export function recordEvents(db: Db, events: readonly DomainEvent[]): Promise<string[]> {
  return db.transaction().execute((tx) => appendEvents(tx, events));
}
