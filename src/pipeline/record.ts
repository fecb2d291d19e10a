// What the afterResponse hooks see of a finished call: one record per call, whatever its kind.
import type { CallSignal } from '../ir/call-signal.ts';
import type { ChatResponse, UpstreamErrorInfo, Usage } from '../ir/types.ts';
import type { CandidateRef } from '../routing/types.ts';
import { isEmptyObject } from '../util/json.ts';
import type { RoutedTarget } from './call.ts';
import type { CallRecord, FeatureNotes, HealthSample, ProxyCall } from './types.ts';

export type { CallRecord, HealthSample } from './types.ts';

/** One finished attempt as the health tracker sees it. */
export function healthSample(
  ref: CandidateRef,
  outcome: { ok: true } | { ok: false; error: UpstreamErrorInfo },
  latencyMs: number,
): HealthSample {
  return outcome.ok
    ? { ref, ok: true, latencyMs, status: 200, kind: 'ok' }
    : { ref, ok: false, latencyMs, status: outcome.error.status, kind: outcome.error.kind };
}

/**
 * A direct call's sample, so that a config naming the same model starts with real numbers. None
 * for a caller's own key (BYOK says nothing about the stored credential) or a caller who left.
 */
export function directHealthSamples(
  target: RoutedTarget,
  outcome: { ok: true } | { ok: false; error: UpstreamErrorInfo },
  latencyMs: number,
  signal: CallSignal,
): HealthSample[] {
  if (target.credentialId === undefined || signal.aborted) return [];
  const ref: CandidateRef = { vendor: target.vendor, vendorAsSent: target.vendorAsSent, model: target.model };
  // Set on healthSample's own object rather than spread into a copy: one per direct call.
  const sample = healthSample(ref, outcome, latencyMs);
  sample.credentialId = target.credentialId;
  return [sample];
}

/** A routed attempt's sample for its credential only (the routing loop reports the candidate's). */
export function credentialSample(
  target: RoutedTarget,
  outcome: { ok: true } | { ok: false; error: UpstreamErrorInfo },
  latencyMs: number,
): HealthSample {
  const { ref: _candidate, ...sample } = healthSample(target, outcome, latencyMs);
  return { ...sample, credentialId: target.credentialId, vendor: target.vendor };
}

/**
 * What a flow learns about its call as it goes, filled in by assignment: one object per call with
 * every field present from the start, so finishing a call copies nothing.
 */
export interface RecordParts {
  status: number;
  requestType: string;
  target: RoutedTarget | undefined;
  /** The model named when no target served the call (a hook answered: the model of the answer it served). */
  modelUsed: string | undefined;
  ttfbMs: number | undefined;
  usage: Usage | undefined;
  costUsd: number;
  error: unknown;
  trace: unknown;
  /** False keeps the request body out of the row (embeddings: the input can be thousands of texts). */
  keepRequestBody: boolean;
  responseBody: unknown;
  healthSamples: HealthSample[];
  /** The answer in IR form, kept only when the call asked for it (ChatCall.collectAnswer). */
  answer: ChatResponse | null;
}

export function recordParts(requestType: string): RecordParts {
  return {
    status: 0,
    requestType,
    target: undefined,
    modelUsed: undefined,
    ttfbMs: undefined,
    usage: undefined,
    costUsd: 0,
    error: null,
    trace: null,
    keepRequestBody: true,
    responseBody: null,
    healthSamples: NO_SAMPLES,
    answer: null,
  };
}

const NO_SAMPLES: HealthSample[] = [];

/** Most calls carry no feature notes: they share this one (noteFeature copies before writing). */
export const NO_FEATURES: FeatureNotes = Object.freeze({});

/** Notes a feature's log columns on a finished call (from its end-of-call work). */
export function noteFeature(record: CallRecord, feature: string, fields: Readonly<Record<string, unknown>>): void {
  if (record.features === NO_FEATURES) record.features = { [feature]: fields };
  else record.features[feature] = fields;
}

function metaString(meta: Record<string, unknown> | undefined, key: string): string | null {
  const v = meta?.[key];
  return typeof v === 'string' ? v : null;
}

/** The end user a call is for: the header, then the svc key, the request's `user`, metadata. */
export function endUserOf(call: ProxyCall): string | null {
  const svc = call.svc;
  return call.hdr.userId ?? svc?.endUser ?? call.chat?.ir.params.user ?? metaString(svc?.metadata, 'user_id');
}

/** The call's tags: svc tags, overridden by header tags (no copy when only one side has tags). */
export function tagsOf(call: ProxyCall): Record<string, string> {
  const svc = call.svc;
  if (!svc || isEmptyObject(svc.tags)) return call.hdr.tags;
  return isEmptyObject(call.hdr.tags) ? svc.tags : { ...svc.tags, ...call.hdr.tags };
}

function traceOf(call: ProxyCall, trace: unknown): unknown {
  const extra = call.hookTrace;
  if (extra === undefined) return trace;
  return typeof trace === 'object' && trace !== null ? { ...trace, ...extra } : extra;
}

/** The identity of the call (who, which end user, which tags) comes from headers, svc keys and metadata. */
export function callRecord(call: ProxyCall, r: RecordParts): CallRecord {
  const svc = call.svc;
  const meta = svc?.metadata;
  const hdr = call.hdr;
  return {
    id: call.requestId,
    requestType: r.requestType,
    orgId: call.principal.orgId,
    projectId: call.principal.projectId,
    keyId: call.principal.keyId,
    endUser: endUserOf(call),
    tags: tagsOf(call),
    traceId: hdr.traceId ?? metaString(meta, 'trace_id'),
    conversationId: hdr.conversationId ?? metaString(meta, 'conversation_id'),
    modelRequested: call.modelRequested,
    modelUsed: r.target?.model ?? r.modelUsed ?? null,
    vendor: r.target?.vendorAsSent ?? null,
    credentialId: r.target?.credentialId ?? null,
    status: r.status,
    latencyMs: performance.now() - call.started,
    ttfbMs: r.ttfbMs ?? null,
    usage: r.usage ?? { input: 0, output: 0 },
    costUsd: r.costUsd,
    error: r.error,
    trace: traceOf(call, r.trace),
    requestBody: r.keepRequestBody ? (call.rawBody ?? call.body) : null,
    responseBody: r.responseBody,
    createdAt: call.createdAt,
    healthSamples: r.healthSamples,
    features: NO_FEATURES,
    answer: r.answer,
    replayOf: call.replayOf ?? null,
    ...(call.batchItem !== undefined ? { batchId: call.batchItem.batchId } : {}),
  };
}
