// What the responses service and its background completion share: reading upstream answers, pricing
// a response, the target a stored response lives on, the 404 of an unknown id.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import { headerValue } from '../families/shared/svc-headers.ts';
import type { RoutedTarget } from '../pipeline/call.ts';
import type { LiveState } from '../pipeline/types.ts';
import type { DomainEvent } from '../ports/domain-events.ts';
import { computeCost } from '../providers/catalog/cost.ts';
import { responsesApi } from '../providers/registry.ts';
import type { VendorId } from '../providers/types.ts';
import type { ResponseRecord } from '../store/responses.ts';
import type { ResponseSummary } from './stream-tap.ts';

export function notFound(id: string): GatewayError {
  return new GatewayError('not_found', {
    message: `Response with id '${id.slice(0, 100)}' not found.`,
    param: 'response_id',
    alphaType: 'invalid_request_error',
  });
}

/** Usage and cost of a response (zero when it reported none), at the org's override when it has one. */
export function cost(live: LiveState, orgId: string, vendor: VendorId, model: string, s: ResponseSummary | undefined) {
  const usage = responsesApi(vendor).usage(s?.usage) ?? { input: 0, output: 0 };
  return {
    usage,
    costUsd: computeCost(vendor, model, usage, { price: live.priceOverride(orgId, vendor, model) }).costUsd,
  };
}

/** The `response.completed` event of a background response; synchronous ones send none. */
export function completedEvents(
  orgId: string,
  s: ResponseSummary,
  background: boolean,
  modelRequested: string,
  traceLink: string | null = null,
): DomainEvent[] {
  if (!background) return [];
  return [
    { orgId, type: 'response.completed', data: { id: s.id, model: modelRequested, status: s.status }, traceLink },
  ];
}

/** The target a stored response lives on: its credential, with the caller's key when it was BYOK. */
export function targetOf(live: LiveState, row: ResponseRecord, headers: IncomingHttpHeaders): RoutedTarget {
  const vendor = row.vendor as VendorId;
  const key = headerValue(headers, 'x-svc-provider-key');
  const stored = row.credentialId === null ? undefined : live.credentialById(row.orgId, row.credentialId);
  if (row.byok && key === undefined)
    throw new GatewayError('invalid_request', {
      message: 'This response was created with X-Svc-Provider-Key; send the same key to reach it',
      param: 'X-Svc-Provider-Key',
    });
  if (!row.byok && stored === undefined) throw notFound(row.id);
  const credential =
    key !== undefined && row.byok
      ? { apiKey: key, baseUrl: stored?.credential.baseUrl ?? null }
      : (stored?.credential ?? { apiKey: '' });
  return { vendor, vendorAsSent: vendor, model: row.model, credentialId: row.credentialId ?? undefined, credential };
}
