// Table shapes of the outbox and the webhook stores (migration 060), merged into the shared
// Database type with `db.withTables<WebhookTables>()`.
import type { JobTables } from './jobs.ts';

export type DomainEventsTable = {
  id: string;
  org_id: string;
  type: string;
  /** JSON text of `{type, timestamp, data}`, exactly as receivers get it. */
  body: string;
  created_at: string;
  /** The originating call's traceparent (migration 200); null when none or tracing is off. */
  trace_link: string | null;
};

export type WebhookEndpointsTable = {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  /** JSON text: `["*"]` or a list of event types. */
  event_types: string;
  /** 1 or 0 (integers on both dialects). */
  active: number;
  /** When the endpoint was created or last re-activated: older events are not dispatched to it. */
  active_since: string;
  disabled_reason: string | null;
  secret_ciphertext: string;
  /** The secret before the last rotation, signed with alongside the new one until it expires. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  /** When the endpoint's current run of failed attempts began; null after any success. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export type WebhookDeliveriesTable = {
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  response_status: number | null;
  response_body: string | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
};

export type WebhookAttemptsTable = {
  delivery_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
};

export type WebhookTables = JobTables & {
  domain_events: DomainEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
};
