// What the afterResponse hooks see of a finished call: one record per call, whatever its kind.
import type { Usage } from '../ir/types.ts';
import type { CandidateRef } from '../routing/types.ts';
import type { ProxyCall } from './types.ts';

export interface HealthSample {
  ref: CandidateRef;
  ok: boolean;
  latencyMs: number;
  status: number;
  kind: string;
}

export interface CallRecord {
  id: string;
  requestType: string;
  orgId: string;
  projectId: string | null;
  keyId: string;
  endUser: string | null;
  tags: Record<string, string>;
  traceId: string | null;
  conversationId: string | null;
  modelRequested: string;
  modelUsed: string | null;
  provider: string | null;
  credentialId: string | null;
  status: number;
  latencyMs: number;
  ttfbMs: number | null;
  usage: Usage;
  costUsd: number;
  error: unknown;
  trace: unknown;
  requestBody: unknown;
  responseBody: unknown;
  createdAt: number;
  healthSamples: HealthSample[];
}

export interface RecordParts {
  status: number;
  requestType: string;
  target?: { model: string; vendorAsSent: string; credentialId?: string };
  ttfbMs?: number;
  usage?: Usage;
  costUsd?: number;
  error?: unknown;
  trace?: unknown;
  /** Null keeps the request body out of the row (embeddings: the input can be thousands of texts). */
  requestBody?: null;
  responseBody?: unknown;
  healthSamples?: HealthSample[];
}

/** The identity of the call (who, which end user, which tags) comes from headers, svc keys and metadata. */
export function callRecord(call: ProxyCall, r: RecordParts): CallRecord {
  const svc = call.svc;
  const meta = svc?.metadata;
  const metaStr = (k: string): string | null => (typeof meta?.[k] === 'string' ? (meta[k] as string) : null);
  return {
    id: call.requestId,
    requestType: r.requestType,
    orgId: call.principal.orgId,
    projectId: call.principal.projectId,
    keyId: call.principal.keyId,
    endUser: call.hdr.userId ?? svc?.endUser ?? call.chat?.ir.params.user ?? metaStr('user_id'),
    tags: svc ? { ...svc.tags, ...call.hdr.tags } : call.hdr.tags,
    traceId: call.hdr.traceId ?? metaStr('trace_id'),
    conversationId: call.hdr.conversationId ?? metaStr('conversation_id'),
    modelRequested: call.modelRequested,
    modelUsed: r.target?.model ?? null,
    provider: r.target?.vendorAsSent ?? null,
    credentialId: r.target?.credentialId ?? null,
    status: r.status,
    latencyMs: performance.now() - call.started,
    ttfbMs: r.ttfbMs ?? null,
    usage: r.usage ?? { input: 0, output: 0 },
    costUsd: r.costUsd ?? 0,
    error: r.error ?? null,
    trace: r.trace ?? null,
    requestBody: r.requestBody === null ? null : (call.rawBody ?? call.body),
    responseBody: r.responseBody ?? null,
    createdAt: call.createdAt,
    healthSamples: r.healthSamples ?? [],
  };
}
