// Domain events: what happened to an organization's resources, in the words receivers subscribe to.
// Stores write them in the transaction of the change they describe (the outbox, src/store/outbox.ts);
// the webhooks feature fans each one out to the endpoints subscribed to its type. The names live
// here, below both, so the catalog served to users and the writers share one list.

export const DOMAIN_EVENT_TYPES = [
  'routing_config.created',
  'routing_config.updated',
  'routing_config.deleted',
  'routing_config.restored',
  'provider.created',
  'provider.rotated',
  'provider.deleted',
  'provider.health_changed',
  'project.created',
  'project.deleted',
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'budget.threshold_reached',
  'budget.exceeded',
  'batch.completed',
  'batch.failed',
  'batch.expired',
  'batch.cancelled',
  'response.completed',
  'webhook.test',
  'webhook_endpoint.disabled',
  'guardrail.blocked',
  'mcp_server.health_changed',
] as const;

export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

/** Event data is JSON: ids, names and numbers, never a secret. */
export type EventData = { [key: string]: EventValue };
type EventValue = string | number | boolean | null | EventValue[] | { [key: string]: EventValue };

export interface DomainEvent {
  orgId: string;
  type: DomainEventType;
  data: EventData;
  /**
   * The W3C traceparent of the call the event came from (a batch's or a response's create call),
   * which each delivery's trace links to; absent or null when there is none or tracing is off.
   */
  traceLink?: string | null;
}
