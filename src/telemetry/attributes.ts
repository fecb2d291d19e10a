// What a finished call says about itself in span attributes: the GenAI conventions for the model
// call, the HTTP server ones for the request, and Switchyard's own facts under `switchyard.*`. All of
// it is read from the call record at the end of the call, none of it gathered on the way, and
// written straight into the span (spans.ts) without an attribute map in between.
import type { CallRecord, ProxyCall } from '../pipeline/types.ts';
import type { AttemptRecord } from '../routing/execute-types.ts';
import type { DecisionTrace } from '../routing/trace.ts';
import * as sc from './semconv.ts';
import type { AttrSink } from './spans.ts';
import { TRACING_NOTE } from './types.ts';

/** `chat` and `embeddings` are the conventions' own operation names; other calls go by request type. */
export function operationName(call: ProxyCall, requestType: string): string {
  if (call.kind === 'chat') return 'chat';
  if (call.kind === 'embeddings') return 'embeddings';
  return requestType;
}

/** The decision trace as the chat and embedding flows record it; null for calls without one. */
export function decisionOf(record: CallRecord | undefined): DecisionTrace | null {
  const t = record?.trace;
  if (t === null || typeof t !== 'object' || !Array.isArray((t as { attempts?: unknown }).attempts)) return null;
  return t as DecisionTrace;
}

function requestAttributes(call: ProxyCall, attrs: AttrSink): void {
  const chat = call.chat;
  if (chat === undefined) return;
  const p = chat.ir.params;
  attrs.put(sc.GEN_AI_REQUEST_MAX_TOKENS, p.maxTokens);
  attrs.put(sc.GEN_AI_REQUEST_TEMPERATURE, p.temperature);
  attrs.put(sc.GEN_AI_REQUEST_TOP_P, p.topP);
  attrs.put(sc.GEN_AI_REQUEST_TOP_K, p.topK);
  attrs.put(sc.GEN_AI_REQUEST_SEED, p.seed);
  attrs.put(sc.GEN_AI_REQUEST_PRESENCE_PENALTY, p.presencePenalty);
  attrs.put(sc.GEN_AI_REQUEST_FREQUENCY_PENALTY, p.frequencyPenalty);
  if (p.stop !== undefined && p.stop.length > 0) attrs.set(sc.GEN_AI_REQUEST_STOP_SEQUENCES, p.stop);
  attrs.set(sc.GEN_AI_REQUEST_STREAM, chat.ir.stream);
}

/** The error's own code where the record has one (`rate_limited`, `upstream_timeout`), else the status. */
export function errorType(status: number, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : String(status);
}

/** Each feature's notes (cache hit or miss, limit and budget decisions, guardrail verdicts), flattened. */
function featureAttributes(record: CallRecord, attrs: AttrSink): void {
  for (const feature in record.features) {
    if (feature === TRACING_NOTE) continue;
    const fields = record.features[feature];
    for (const name in fields) {
      const value = fields[name];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        attrs.set(`switchyard.${feature}.${name}`, value);
    }
  }
}

/** What the beforeRoute hooks wrote into the decision trace: a limit's refusal, guardrail verdicts, a cache skip. */
function hookAttributes(trace: unknown, attrs: AttrSink): void {
  if (trace === null || typeof trace !== 'object') return;
  const t = trace as {
    limits?: { refused_by?: { kind?: unknown; scope?: unknown; budget_id?: unknown } };
    guardrails?: ReadonlyArray<{ policy_name?: unknown; check_type?: unknown; action?: unknown; applied?: unknown }>;
    cache?: { skipped?: unknown };
  };
  const refusal = t.limits?.refused_by;
  if (refusal !== undefined) {
    if (typeof refusal.kind === 'string') attrs.set('switchyard.limits.refused_by', refusal.kind);
    if (typeof refusal.scope === 'string') attrs.set('switchyard.limits.scope', refusal.scope);
    if (typeof refusal.budget_id === 'string') attrs.set('switchyard.budget.id', refusal.budget_id);
  }
  if (Array.isArray(t.guardrails) && t.guardrails.length > 0)
    attrs.set(
      'switchyard.guardrails.verdicts',
      t.guardrails.map(
        (v) =>
          `${String(v.policy_name)}:${String(v.check_type)}:${String(v.action)}${v.applied === false ? ':not_applied' : ''}`,
      ),
    );
  if (typeof t.cache?.skipped === 'string') attrs.set('switchyard.cache.skipped', t.cache.skipped);
}

/**
 * The server span's attributes. A held call's record is the one its answer went out with (a queued
 * background response): its usage and cost are not known yet, and the linked completion span has them.
 */
export function serverAttributes(
  call: ProxyCall,
  op: string,
  record: CallRecord | undefined,
  held: boolean,
  attrs: AttrSink,
): void {
  attrs.set(sc.GEN_AI_OPERATION_NAME, op);
  attrs.set(sc.GEN_AI_REQUEST_MODEL, call.modelRequested);
  attrs.set(sc.HTTP_REQUEST_METHOD, 'POST');
  attrs.set('switchyard.request_id', call.requestId);
  attrs.set('switchyard.org_id', call.principal.orgId);
  attrs.set('switchyard.key_id', call.principal.keyId);
  attrs.put('switchyard.project_id', call.principal.projectId);
  requestAttributes(call, attrs);
  if (record === undefined) return;
  attrs.set(sc.HTTP_RESPONSE_STATUS_CODE, record.status);
  attrs.put(sc.GEN_AI_PROVIDER_NAME, record.vendor === null ? null : sc.providerName(record.vendor));
  attrs.put(sc.GEN_AI_RESPONSE_MODEL, record.answer?.model ?? record.modelUsed);
  attrs.put(sc.GEN_AI_RESPONSE_ID, record.answer?.id ?? bodyId(record.responseBody));
  const finish = record.answer?.stopReason ?? streamStopReason(record.responseBody);
  if (finish !== undefined) attrs.set(sc.GEN_AI_RESPONSE_FINISH_REASONS, [finish]);
  if (!held) {
    attrs.set(sc.GEN_AI_USAGE_INPUT_TOKENS, record.usage.input);
    attrs.set(sc.GEN_AI_USAGE_OUTPUT_TOKENS, record.usage.output);
    attrs.put(sc.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, record.usage.cacheRead);
    attrs.put(sc.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, record.usage.cacheWrite);
  }
  attrs.put(sc.GEN_AI_CONVERSATION_ID, record.conversationId);
  if (record.status >= 400) attrs.set(sc.ERROR_TYPE, errorType(record.status, record.error));
  if (!held) attrs.set('switchyard.cost_usd', record.costUsd);
  attrs.put('switchyard.trace_id', record.traceId);
  attrs.put('switchyard.end_user', record.endUser);
  attrs.put('switchyard.batch_id', record.batchId);
  const decision = decisionOf(record);
  if (decision !== null) {
    attrs.set('switchyard.strategy', decision.policy);
    attrs.put('switchyard.config.slug', decision.config?.slug);
    attrs.put('switchyard.config.version', decision.config?.version);
    attrs.set('switchyard.attempts', decision.attempts.length);
  }
  hookAttributes(record.trace, attrs);
  featureAttributes(record, attrs);
}

/** A pass-through answer's own id (a Responses API response), where no IR answer was kept. */
function bodyId(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}

function streamStopReason(body: unknown): string | undefined {
  const r = (body as { stop_reason?: unknown } | null)?.stop_reason;
  return typeof r === 'string' ? r : undefined;
}

/** Host and port of an upstream URL; the few vendor base URLs in use are parsed once each. */
const servers = new Map<string, { host: string; port: number } | null>();

function serverOf(url: string): { host: string; port: number } | null {
  let s = servers.get(url);
  if (s !== undefined) return s;
  s = null;
  if (URL.canParse(url)) {
    const u = new URL(url);
    s = { host: u.hostname, port: u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port) };
  }
  // Paths may carry the model name; past a bound the map starts over rather than grow.
  if (servers.size >= 1024) servers.clear();
  servers.set(url, s);
  return s;
}

/** One upstream attempt, as its client span describes it. */
export function attemptAttributes(
  op: string,
  vendor: string,
  model: string,
  url: string | undefined,
  attrs: AttrSink,
): void {
  attrs.set(sc.GEN_AI_OPERATION_NAME, op);
  attrs.set(sc.GEN_AI_PROVIDER_NAME, sc.providerName(vendor));
  attrs.set(sc.GEN_AI_REQUEST_MODEL, model);
  const server = url === undefined ? null : serverOf(url);
  if (server !== null) {
    attrs.set(sc.SERVER_ADDRESS, server.host);
    attrs.set(sc.SERVER_PORT, server.port);
  }
}

/** What the decision trace recorded of the attempt: its status, outcome and cost. */
export function attemptOutcomeAttributes(a: AttemptRecord, attrs: AttrSink): void {
  attrs.set(sc.HTTP_RESPONSE_STATUS_CODE, a.status);
  attrs.set('switchyard.attempt.outcome', a.outcome);
  attrs.set('switchyard.attempt.cost_usd', a.cost_usd);
  if (a.outcome !== 'success') attrs.set(sc.ERROR_TYPE, a.status > 0 ? String(a.status) : a.outcome);
  attrs.put('switchyard.attempt.reason', a.reason);
  if (a.served === true) attrs.set('switchyard.attempt.served', true);
}
