// Webhook endpoints. Deletion is soft: deliveries already made still run and stay listed. The
// signing secret is stored sealed (the caller encrypts); after a rotation the previous one is kept
// until it expires so deliveries can carry both signatures. `failing_since` tracks an endpoint
// whose attempts keep failing, so the delivery path can disable it after long enough.
import { fromJsonText } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';
import { orgTable } from './org-table.ts';
import { appendEvents } from './outbox.ts';
import type { WebhookEndpointsTable, WebhookTables } from './webhooks-schema.ts';

export interface WebhookEndpointRecord {
  id: string;
  orgId: string;
  url: string;
  description: string | null;
  /** `["*"]` or event type names. */
  eventTypes: string[];
  active: boolean;
  activeSince: string;
  disabledReason: string | null;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface NewWebhookEndpoint {
  id: string;
  orgId: string;
  url: string;
  description: string | null;
  eventTypes: readonly string[];
  secretCiphertext: string;
}

export interface WebhookEndpointPatch {
  url?: string;
  description?: string | null;
  eventTypes?: readonly string[];
  /** true also clears the disabled reason and the failure streak. */
  active?: boolean;
}

export interface WebhookEndpointStore {
  create(e: NewWebhookEndpoint): Promise<WebhookEndpointRecord>;
  /** Deleted endpoints included (their deliveries still name them). */
  get(orgId: string, id: string): Promise<WebhookEndpointRecord | undefined>;
  /** Live endpoints, oldest first. */
  list(orgId: string, page: { afterId?: string; limit: number }): Promise<WebhookEndpointRecord[]>;
  /** Active, live endpoints of the org: the candidates for a new event. */
  listActive(orgId: string): Promise<WebhookEndpointRecord[]>;
  update(orgId: string, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRecord | undefined>;
  softDelete(orgId: string, id: string): Promise<WebhookEndpointRecord | undefined>;
  /** Seals in the new secret and keeps the current one as previous until `previousExpiresAt`. */
  rotateSecret(
    orgId: string,
    id: string,
    secretCiphertext: string,
    previousExpiresAt: string,
  ): Promise<WebhookEndpointRecord | undefined>;
  /** After a 2xx: the endpoint is not failing. */
  markSucceeded(id: string): Promise<void>;
  /** After a failed attempt: starts the failure streak if none runs; returns when it began. */
  markFailed(id: string, at: string): Promise<string | null>;
  /**
   * Disables a still-active endpoint and records `webhook_endpoint.disabled` in the same
   * transaction; false when it was already inactive or deleted.
   */
  disable(orgId: string, id: string, reason: string): Promise<boolean>;
}

function toRecord(r: WebhookEndpointsTable): WebhookEndpointRecord {
  const types = fromJsonText(r.event_types);
  return {
    id: r.id,
    orgId: r.org_id,
    url: r.url,
    description: r.description,
    eventTypes: Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string') : [],
    active: Number(r.active) === 1,
    activeSince: r.active_since,
    disabledReason: r.disabled_reason,
    secretCiphertext: r.secret_ciphertext,
    previousSecretCiphertext: r.previous_secret_ciphertext,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    failingSince: r.failing_since,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export function createWebhookEndpointStore(baseDb: Db): WebhookEndpointStore {
  const db = baseDb.withTables<WebhookTables>();
  const live = (orgId: string, id: string) =>
    db
      .updateTable('webhook_endpoints')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null);
  const table = orgTable(baseDb, 'webhook_endpoints', toRecord);
  const get = table.get;

  return {
    create(e) {
      const now = nowIso();
      return table.insert({
        id: e.id,
        org_id: e.orgId,
        url: e.url,
        description: e.description,
        event_types: JSON.stringify(e.eventTypes),
        active: 1,
        active_since: now,
        disabled_reason: null,
        secret_ciphertext: e.secretCiphertext,
        previous_secret_ciphertext: null,
        previous_secret_expires_at: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      });
    },
    get,
    async list(orgId, page) {
      let q = db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null);
      if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
      return (await q.orderBy('id').limit(page.limit).execute()).map(toRecord);
    },
    async listActive(orgId) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null)
        .where('active', '=', 1)
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },
    async update(orgId, id, patch) {
      const set: Partial<WebhookEndpointsTable> = { updated_at: nowIso() };
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.eventTypes !== undefined) set.event_types = JSON.stringify(patch.eventTypes);
      if (patch.active === true) Object.assign(set, { active: 1, disabled_reason: null, failing_since: null });
      if (patch.active === false) Object.assign(set, { active: 0, disabled_reason: 'disabled by user' });
      const res = await live(orgId, id)
        .set((eb) => ({
          ...set,
          // Re-activation starts a new subscription; staying active keeps the old start.
          ...(patch.active === true
            ? { active_since: eb.case().when('active', '=', 0).then(set.updated_at).else(eb.ref('active_since')).end() }
            : {}),
        }))
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return undefined;
      return get(orgId, id);
    },
    softDelete: (orgId, id) => table.softDelete(orgId, id),
    async rotateSecret(orgId, id, secretCiphertext, previousExpiresAt) {
      const res = await live(orgId, id)
        .set((eb) => ({
          previous_secret_ciphertext: eb.ref('secret_ciphertext'),
          previous_secret_expires_at: previousExpiresAt,
          secret_ciphertext: secretCiphertext,
          updated_at: nowIso(),
        }))
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return undefined;
      return get(orgId, id);
    },
    async markSucceeded(id) {
      await db
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', '=', id)
        .where('failing_since', 'is not', null)
        .execute();
    },
    async markFailed(id, at) {
      await db
        .updateTable('webhook_endpoints')
        .set({ failing_since: at })
        .where('id', '=', id)
        .where('failing_since', 'is', null)
        .execute();
      const r = await db
        .selectFrom('webhook_endpoints')
        .select('failing_since')
        .where('id', '=', id)
        .executeTakeFirst();
      return r?.failing_since ?? null;
    },
    async disable(orgId, id, reason) {
      return db.transaction().execute(async (tx) => {
        const now = nowIso();
        const row = await tx
          .updateTable('webhook_endpoints')
          .set({ active: 0, disabled_reason: reason, updated_at: now })
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .where('active', '=', 1)
          .returning(['url'])
          .executeTakeFirst();
        if (!row) return false;
        await appendEvents(tx, [{ orgId, type: 'webhook_endpoint.disabled', data: { id, url: row.url, reason } }]);
        return true;
      });
    },
  };
}
