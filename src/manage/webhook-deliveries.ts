// Webhook deliveries (list, get with the attempt history, replay) and the event catalog.
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { DeliveryDetail, DeliveryRecord } from '../store/webhook-deliveries.ts';
import { fromJsonText } from '../util/json.ts';
import { eventTypeCatalog } from '../webhooks/event-catalog.ts';
import { ATTEMPT_TIMEOUT_MS } from '../webhooks/sender.ts';
import { notFound, requireOrgKey } from './access.ts';
import { decodeCursor, toPage } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

const TAG = 'webhooks';

const Status = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);

export const Delivery = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_delivery'),
  endpoint_id: Type.String(),
  event_id: Type.String({ description: 'Sent as webhook-id: the same on every attempt and replay' }),
  event_type: Type.String(),
  status: Status,
  attempt_count: Type.Integer(),
  response_status: Nullable(Type.Integer({ description: "The last attempt's HTTP status; null when none answered" })),
  last_error: Nullable(Type.String()),
  next_attempt_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  delivered_at: Nullable(Timestamp),
});

const Attempt = Type.Object({
  attempt: Type.Integer(),
  started_at: Timestamp,
  duration_ms: Type.Integer(),
  response_status: Nullable(Type.Integer()),
  response_body: Nullable(Type.String({ description: 'First 4 KB of the answer' })),
  error: Nullable(Type.String()),
});

const DeliveryWithHistory = Type.Object({
  ...Delivery.properties,
  payload: Type.Unknown({ description: 'The body sent: {type, timestamp, data}' }),
  response_body: Nullable(Type.String({ description: "First 4 KB of the last attempt's answer" })),
  attempts: Type.Array(Attempt),
});

export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    object: 'webhook_delivery' as const,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attemptCount,
    response_status: d.responseStatus,
    last_error: d.lastError,
    next_attempt_at: d.nextAttemptAt,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    delivered_at: d.deliveredAt,
  };
}

function detailView(d: DeliveryDetail) {
  return {
    ...deliveryView(d),
    payload: fromJsonText(d.body),
    response_body: d.responseBody,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.startedAt,
      duration_ms: a.durationMs,
      response_status: a.responseStatus,
      response_body: a.responseBody,
      error: a.error,
    })),
  };
}

/** Waits (bounded by one attempt's timeout plus a margin) until the delivery's first attempt is recorded. */
export async function awaitFirstAttempt(svc: Services, orgId: string, d: DeliveryRecord): Promise<DeliveryRecord> {
  const deadline = Date.now() + ATTEMPT_TIMEOUT_MS + 2_000;
  let current: DeliveryRecord = d;
  while (current.attemptCount === 0 && Date.now() < deadline) {
    await sleep(50);
    current = (await svc.stores.webhookDeliveries.get(orgId, d.id)) ?? current;
  }
  return current;
}

const listDeliveries = defineOperation({
  name: 'list_webhook_deliveries',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/webhooks/deliveries',
  tag: TAG,
  summary: 'List webhook deliveries, newest first',
  input: {
    query: Type.Object(
      {
        ...PageQuery,
        endpoint_id: Type.Optional(Type.String({ maxLength: 100 })),
        status: Type.Optional(Status),
        event_type: Type.Optional(Type.String({ maxLength: 100 })),
      },
      { additionalProperties: false },
    ),
  },
  output: pageOf(Delivery),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    const limit = query.limit ?? 50;
    const rows = await svc.stores.webhookDeliveries.list(orgId, {
      endpointId: query.endpoint_id,
      status: query.status,
      eventType: query.event_type,
      beforeId: decodeCursor(query.cursor),
      limit: limit + 1,
    });
    return toPage(rows, limit, deliveryView);
  },
});

const DeliveryId = Type.Object({ delivery_id: Type.String({ minLength: 1, maxLength: 100 }) });

const getDelivery = defineOperation({
  name: 'get_webhook_delivery',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/webhooks/deliveries/{delivery_id}',
  tag: TAG,
  summary: 'Get a delivery: its payload, last response and every attempt',
  input: { params: DeliveryId },
  output: DeliveryWithHistory,
  async handler({ svc, principal, params }) {
    const d = await svc.stores.webhookDeliveries.get(requireOrgKey(principal), params.delivery_id);
    if (!d) throw notFound('webhook delivery', params.delivery_id);
    return detailView(d);
  },
});

const replayDelivery = defineOperation({
  name: 'replay_webhook_delivery',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/webhooks/deliveries/{delivery_id}/replay',
  tag: TAG,
  summary: 'Send the same payload again with the same webhook-id; pending until it lands',
  status: 202,
  errors: [409],
  input: { params: DeliveryId },
  output: Delivery,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    const d = await svc.stores.webhookDeliveries.get(orgId, params.delivery_id);
    if (!d) throw notFound('webhook delivery', params.delivery_id);
    const endpoint = await svc.stores.webhookEndpoints.get(orgId, d.endpointId);
    if (!endpoint || endpoint.deletedAt !== null) {
      throw new GatewayError('webhook_endpoint_deleted', { vars: { id: d.endpointId } });
    }
    const replayed = await svc.stores.webhookDeliveries.replay(orgId, d.id, svc.webhooks.deliveryJob);
    if (!replayed) throw notFound('webhook delivery', params.delivery_id);
    return deliveryView(replayed);
  },
});

const listEventTypes = defineOperation({
  name: 'list_webhook_event_types',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/webhooks/event-types',
  tag: TAG,
  summary: 'Every event type an endpoint can subscribe to, with a description and an example',
  input: {},
  output: Type.Object({
    data: Type.Array(
      Type.Object({
        type: Type.String(),
        description: Type.String(),
        example: Type.Record(Type.String(), Type.Unknown()),
      }),
    ),
  }),
  async handler({ principal }) {
    requireOrgKey(principal);
    return eventTypeCatalog();
  },
});

export const webhookDeliveryOperations: Operation[] = [listDeliveries, getDelivery, replayDelivery, listEventTypes];
