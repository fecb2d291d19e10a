// Webhook endpoints: create (the signing secret is returned once), list, get, update, soft-delete,
// rotate the secret (the old one keeps signing for 24 h) and send a test event. Deliveries are in
// webhook-deliveries.ts.
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import type { WebhookEndpointRecord } from '../store/webhook-endpoints.ts';
import { newId } from '../util/ids.ts';
import { isEventType, validateEventTypes } from '../webhooks/event-catalog.ts';
import { ROTATION_OVERLAP_MS } from '../webhooks/service.ts';
import { generateSigningSecret } from '../webhooks/signing.ts';
import { checkEndpointUrl } from '../webhooks/url-policy.ts';
import { liveOr404, notFound, requireOrgKey } from './access.ts';
import { ManagedBy } from './config-managed.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';
import { awaitFirstAttempt, Delivery, deliveryView } from './webhook-deliveries.ts';

const TAG = 'webhooks';

const EndpointId = Type.Object({ endpoint_id: Type.String({ minLength: 1, maxLength: 100 }) });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL that receives the POSTs' });
const EventTypes = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: 100,
  description: 'Event types to receive (see GET /manage/v1/webhooks/event-types), or ["*"] for all',
});
const Description = Type.String({ maxLength: 1000 });

const Endpoint = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_endpoint'),
  managed_by: ManagedBy,
  url: Type.String(),
  description: Nullable(Type.String()),
  event_types: Type.Array(Type.String()),
  active: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: 'Why the endpoint is inactive' })),
  failing_since: Nullable(Timestamp),
  previous_secret_expires_at: Nullable(
    Type.String({ description: 'Until then deliveries are also signed with the secret before the last rotation' }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Nullable(Timestamp),
});

const WithSecret = Type.Object({
  ...Endpoint.properties,
  signing_secret: Type.String({ description: 'whsec_... Returned only by create and rotate-secret.' }),
});

function endpointView(e: WebhookEndpointRecord, now: number = Date.now()) {
  const overlap = e.previousSecretExpiresAt !== null && Date.parse(e.previousSecretExpiresAt) > now;
  return {
    id: e.id,
    object: 'webhook_endpoint' as const,
    managed_by: null,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    active: e.active,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince,
    previous_secret_expires_at: overlap ? e.previousSecretExpiresAt : null,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    deleted_at: e.deletedAt,
  };
}

function checkedUrl(svc: Services, url: string): string {
  const verdict = checkEndpointUrl(url, { denyPrivate: svc.config.webhookDenyPrivate });
  if (!verdict.ok) throw new GatewayError('invalid_webhook_url', { message: verdict.reason, param: 'url' });
  return url;
}

function checkedTypes(types: unknown): string[] {
  const v = validateEventTypes(types);
  if (!v.ok) throw new GatewayError('invalid_event_types', { message: v.message, param: 'event_types' });
  return [...v.value];
}

async function liveEndpoint(svc: Services, orgId: string, id: string): Promise<WebhookEndpointRecord> {
  const e = liveOr404(await svc.stores.webhookEndpoints.get(orgId, id), 'webhook endpoint', id);
  return e;
}

const listEndpoints = defineOperation({
  name: 'list_webhook_endpoints',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/webhooks/endpoints',
  tag: TAG,
  summary: 'List webhook endpoints (never their secrets)',
  input: { query: Type.Object({ ...PageQuery }, { additionalProperties: false }) },
  output: pageOf(Endpoint),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    return pageAfter(
      query,
      (page) => svc.stores.webhookEndpoints.list(orgId, page),
      (e) => endpointView(e),
    );
  },
});

const getEndpoint = defineOperation({
  name: 'get_webhook_endpoint',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/webhooks/endpoints/{endpoint_id}',
  tag: TAG,
  summary: 'Get a webhook endpoint (deleted ones too, with deleted_at set)',
  input: { params: EndpointId },
  output: Endpoint,
  async handler({ svc, principal, params }) {
    const e = await svc.stores.webhookEndpoints.get(requireOrgKey(principal), params.endpoint_id);
    if (!e) throw notFound('webhook endpoint', params.endpoint_id);
    return endpointView(e);
  },
});

const createEndpoint = defineOperation({
  name: 'create_webhook_endpoint',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/webhooks/endpoints',
  tag: TAG,
  summary: 'Create a webhook endpoint; its signing secret is returned in this response only',
  status: 201,
  input: {
    body: Type.Object(
      { url: Url, event_types: Type.Optional(EventTypes), description: Type.Optional(Nullable(Description)) },
      { additionalProperties: false },
    ),
  },
  output: WithSecret,
  async handler({ svc, principal, body }) {
    const orgId = requireOrgKey(principal);
    const url = checkedUrl(svc, body.url);
    const eventTypes = checkedTypes(body.event_types ?? ['*']);
    const id = newId('whep');
    const secret = generateSigningSecret();
    const e = await svc.stores.webhookEndpoints.create({
      id,
      orgId,
      url,
      description: body.description ?? null,
      eventTypes,
      secretCiphertext: svc.webhooks.sealSecret(orgId, id, secret),
    });
    return { ...endpointView(e), signing_secret: secret };
  },
});

const updateEndpoint = defineOperation({
  name: 'update_webhook_endpoint',
  method: 'PATCH',
  role: 'developer',
  path: '/manage/v1/webhooks/endpoints/{endpoint_id}',
  tag: TAG,
  summary: 'Change url, event_types, description or active; an inactive endpoint gets no new deliveries',
  input: {
    params: EndpointId,
    body: Type.Object(
      {
        url: Type.Optional(Url),
        event_types: Type.Optional(EventTypes),
        description: Type.Optional(Nullable(Description)),
        active: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  },
  output: Endpoint,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const e = await svc.stores.webhookEndpoints.update(orgId, params.endpoint_id, {
      ...(body.url !== undefined ? { url: checkedUrl(svc, body.url) } : {}),
      ...(body.event_types !== undefined ? { eventTypes: checkedTypes(body.event_types) } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.active !== undefined ? { active: body.active } : {}),
    });
    if (!e) throw notFound('webhook endpoint', params.endpoint_id);
    return endpointView(e);
  },
});

const deleteEndpoint = defineOperation({
  name: 'delete_webhook_endpoint',
  method: 'DELETE',
  role: 'developer',
  path: '/manage/v1/webhooks/endpoints/{endpoint_id}',
  tag: TAG,
  summary: 'Soft-delete a webhook endpoint; deliveries already made still complete',
  input: { params: EndpointId },
  output: Endpoint,
  async handler({ svc, principal, params }) {
    const e = await svc.stores.webhookEndpoints.softDelete(requireOrgKey(principal), params.endpoint_id);
    if (!e) throw notFound('webhook endpoint', params.endpoint_id);
    return endpointView(e);
  },
});

const rotateSecret = defineOperation({
  name: 'rotate_webhook_secret',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/webhooks/endpoints/{endpoint_id}/rotate-secret',
  tag: TAG,
  summary: 'Replace the signing secret (returned once); for 24 h deliveries carry both signatures',
  input: { params: EndpointId },
  output: WithSecret,
  async handler({ svc, principal, params }) {
    const orgId = requireOrgKey(principal);
    const secret = generateSigningSecret();
    const expires = new Date(Date.now() + ROTATION_OVERLAP_MS).toISOString();
    const e = await svc.stores.webhookEndpoints.rotateSecret(
      orgId,
      params.endpoint_id,
      svc.webhooks.sealSecret(orgId, params.endpoint_id, secret),
      expires,
    );
    if (!e) throw notFound('webhook endpoint', params.endpoint_id);
    return { ...endpointView(e), signing_secret: secret };
  },
});

const sendTest = defineOperation({
  name: 'send_webhook_test',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/webhooks/endpoints/{endpoint_id}/test',
  tag: TAG,
  summary: 'Send a synthetic event through the normal delivery path; returns the delivery after its first attempt',
  description:
    "The event carries the catalog example of the type (with `test: true`). The call waits for the first attempt (at most about 12 s) so the answer shows the receiver's response; retries, if any, follow the normal schedule.",
  input: {
    params: EndpointId,
    body: Type.Object(
      { event_type: Type.Optional(Type.String({ maxLength: 100, default: 'webhook.test' })) },
      { additionalProperties: false },
    ),
  },
  output: Delivery,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const type = body.event_type ?? 'webhook.test';
    if (!isEventType(type)) {
      throw new GatewayError('invalid_event_types', {
        message: `event_type: unknown event type ${JSON.stringify(type)}; see GET /manage/v1/webhooks/event-types`,
        param: 'event_type',
      });
    }
    const endpoint = await liveEndpoint(svc, orgId, params.endpoint_id);
    const created = await svc.webhooks.sendTest(endpoint, type);
    return deliveryView(await awaitFirstAttempt(svc, orgId, created));
  },
});

export const webhookEndpointOperations: Operation[] = [
  listEndpoints,
  getEndpoint,
  createEndpoint,
  updateEndpoint,
  deleteEndpoint,
  rotateSecret,
  sendTest,
];
