// The log record of a call that is not a model call (files, batches): the same CallRecord and the
// same afterResponse hooks (log row, metrics, rollups), so these endpoints show up in logs and
// analytics with their request_type like every other call.
import type { IncomingHttpHeaders } from 'node:http';
import { readSvcHeaders } from '../families/shared/svc-headers.ts';
import type { Usage } from '../ir/types.ts';
import type { Principal } from '../live/principals.ts';
import type { PipelineDeps } from './deps.ts';
import { runAfterResponse } from './hooks.ts';
import { NO_FEATURES } from './record.ts';
import type { CallRecord } from './types.ts';

/** Who called which endpoint, and when. */
export interface EndpointCall {
  requestType: string;
  principal: Principal;
  requestId: string;
  headers: IncomingHttpHeaders;
  /** performance.now() at arrival. */
  started: number;
  /** Date.now() at arrival. */
  createdAt: number;
  /** Where the request type alone does not say it (batches exist in both families). */
  family?: 'alpha' | 'beta';
}

/** How it ended, and what it is worth recording beyond the status. */
export interface EndpointOutcome {
  status: number;
  modelRequested?: string;
  modelUsed?: string | null;
  vendor?: string | null;
  credentialId?: string | null;
  usage?: Usage;
  costUsd?: number;
  error?: unknown;
  trace?: unknown;
  /** What the row keeps of the request: never file contents, only what describes them. */
  requestBody?: unknown;
  responseBody?: unknown;
}

export function endpointCall(
  requestType: string,
  principal: Principal,
  requestId: string,
  headers: IncomingHttpHeaders,
  family?: 'alpha' | 'beta',
): EndpointCall {
  const call: EndpointCall = {
    requestType,
    principal,
    requestId,
    headers,
    started: performance.now(),
    createdAt: Date.now(),
  };
  if (family !== undefined) call.family = family;
  return call;
}

export function endpointRecord(call: EndpointCall, outcome: EndpointOutcome): CallRecord {
  const hdr = readSvcHeaders(call.headers);
  const record: CallRecord = {
    id: call.requestId,
    requestType: call.requestType,
    orgId: call.principal.orgId,
    projectId: call.principal.projectId,
    keyId: call.principal.keyId,
    endUser: hdr.userId ?? null,
    tags: hdr.tags,
    traceId: hdr.traceId ?? null,
    conversationId: hdr.conversationId ?? null,
    modelRequested: outcome.modelRequested ?? '',
    modelUsed: outcome.modelUsed ?? null,
    vendor: outcome.vendor ?? null,
    credentialId: outcome.credentialId ?? null,
    status: outcome.status,
    latencyMs: performance.now() - call.started,
    ttfbMs: null,
    usage: outcome.usage ?? { input: 0, output: 0 },
    costUsd: outcome.costUsd ?? 0,
    error: outcome.error ?? null,
    trace: outcome.trace ?? null,
    requestBody: outcome.requestBody ?? null,
    responseBody: outcome.responseBody ?? null,
    createdAt: call.createdAt,
    healthSamples: [],
    features: NO_FEATURES,
    answer: null,
    replayOf: null,
  };
  if (call.family !== undefined) record.family = call.family;
  return record;
}

/** Records the call through the afterResponse hooks (synchronously: the row is journaled on return). */
export function recordEndpointCall(deps: PipelineDeps, call: EndpointCall, outcome: EndpointOutcome): void {
  if (deps.hooks.afterResponse.length === 0) return;
  runAfterResponse(deps.hooks, endpointRecord(call, outcome), deps.onHookError);
}
