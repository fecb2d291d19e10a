// The chat flow shared by both families: decode -> beforeRoute hooks -> route -> dry run? ->
// beforeAttempt hooks (may answer) -> execute attempts -> encode in the caller's family with X-Svc-*
// headers -> afterResponse hooks once the answer is out.
import { abortedByShutdown, fromUpstream, GatewayError } from '../errors/gateway-error.ts';
import { readSvcHeaders } from '../families/shared/svc-headers.ts';
import type { Usage } from '../ir/types.ts';
import { computeCost, formatCostHeader } from '../providers/catalog/cost.ts';
import { requestFacts } from '../routing/planner.ts';
import type { ChatCall } from './call.ts';
import type { PipelineDeps } from './deps.ts';
import { executeChat, type Served } from './executor.ts';
import { type HookAnswer, runAfterResponse, runBeforeAttempt, runBeforeRoute } from './hooks.ts';
import { type CallRecord, callRecord, type RecordParts, recordParts } from './record.ts';
import { dryRunOf, routeCall } from './route.ts';
import type { CallKind, PipelineReply, ProxyCall, ProxyInput, RoutePlan } from './types.ts';

export function newCall(input: ProxyInput, kind: CallKind): ProxyCall {
  const m = (input.body as { model?: unknown } | null)?.model;
  // Every field written here, in one literal, so each call object has the same shape from the start.
  return {
    codec: input.codec,
    principal: input.principal,
    requestId: input.requestId,
    body: input.body,
    rawBody: input.rawBody,
    headers: input.headers,
    signal: input.signal,
    dryRun: input.dryRun,
    replayOf: input.replayOf,
    batchItem: input.batchItem,
    kind,
    hdr: readSvcHeaders(input.headers),
    started: performance.now(),
    createdAt: Date.now(),
    modelRequested: typeof m === 'string' ? m : '',
    chat: undefined,
    svc: undefined,
    onEnd: undefined,
    replyHeaders: undefined,
    hookTrace: undefined,
    cacheNote: undefined,
  };
}

/** Gives back what hooks took for the call (once), e.g. when it ends without a record. */
export function endCall(deps: PipelineDeps, call: ProxyCall, record?: CallRecord): void {
  const end = call.onEnd;
  if (end === undefined) return;
  call.onEnd = undefined;
  try {
    end(record);
  } catch (err) {
    deps.onHookError(err);
  }
}

export function finish(deps: PipelineDeps, call: ProxyCall, record: CallRecord): void {
  endCall(deps, call, record);
  call.batchItem?.onRecord(record);
  if (deps.hooks.afterResponse.length > 0) runAfterResponse(deps.hooks, record, deps.onHookError);
}

/** The answer's headers with those hooks added (rate-limit state). */
export function withCallHeaders(call: ProxyCall, headers: Record<string, string>): Record<string, string> {
  return call.replyHeaders ? Object.assign(headers, call.replyHeaders) : headers;
}

/** A refused or failed call, in the called family's error shape. */
export function errorReply(
  call: ProxyCall,
  e: GatewayError,
  deps: PipelineDeps,
  parts: RecordParts,
  headers: Record<string, string> = {},
): PipelineReply {
  parts.status = e.status;
  if (parts.error === null) parts.error = { message: e.message, code: e.wireCode };
  withCallHeaders(call, headers);
  return {
    kind: 'json',
    status: e.status,
    headers: e.headers ? Object.assign(headers, e.headers) : headers,
    body: call.codec.errorBody(e),
    done: () => finish(deps, call, callRecord(call, parts)),
  };
}

export async function runChat(input: ProxyInput, deps: PipelineDeps): Promise<PipelineReply> {
  const call = newCall(input, 'chat');
  const requestType = input.codec.requestType;
  try {
    const decoded = input.codec.decode(input.body);
    const ir = decoded.ir;
    call.modelRequested = ir.model;
    if (call.hdr.userId) ir.params.user = call.hdr.userId;
    const chat: ChatCall = {
      codec: input.codec,
      ir,
      body: input.body as Record<string, unknown>,
      requestId: input.requestId,
      created: Math.floor(call.createdAt / 1000),
      includeUsage: decoded.includeUsage,
      userOverride: call.hdr.userId,
      upstreamHeaders: input.codec.upstreamHeaders(call.hdr),
      deadlines: ir.stream ? deps.deadlines.stream : deps.deadlines.answer,
    };
    call.chat = chat;
    call.svc = decoded.svc;
    if (deps.hooks.beforeRoute.length > 0) {
      const pending = runBeforeRoute(deps.hooks, call);
      if (pending) await pending;
    }
    const plan = routeCall(
      {
        model: ir.model,
        principal: input.principal,
        hdr: call.hdr,
        kind: 'chat',
        facts: () =>
          requestFacts({ family: input.codec.family, ir, svc: decoded.svc, hdr: call.hdr, headers: input.headers }),
      },
      deps.live,
    );
    // No upstream call and no log row: a dry run changes nothing and costs nothing.
    if (input.dryRun === true || call.hdr.dryRun)
      return { kind: 'json', status: 200, headers: {}, body: dryRunOf(plan), done: () => endCall(deps, call) };
    if (ir.stream && plan.kind === 'config') {
      const mode = plan.decision.mode;
      if (mode === 'cascade' || mode === 'parallel_judge')
        throw new GatewayError('stream_not_supported', { vars: { strategy: plan.cfg.strategy }, param: 'stream' });
    }
    let answer = deps.hooks.beforeAttempt.length > 0 ? runBeforeAttempt(deps.hooks, call, plan) : undefined;
    if (answer instanceof Promise) answer = await answer;
    if (answer) return respond(call, plan, hookServed(plan, answer), deps, 'HIT', answer);
    const served = await executeChat(chat, plan, input.principal.orgId, deps.live, input.signal);
    return respond(call, plan, served, deps, 'MISS');
  } catch (err) {
    if (err instanceof GatewayError) return errorReply(call, err, deps, recordParts(requestType));
    endCall(deps, call);
    throw err;
  }
}

function hookServed(plan: RoutePlan, answer: HookAnswer): Served {
  return {
    outcome: answer.outcome,
    attempts: [],
    trace: {
      policy: 'cache',
      config: plan.config,
      candidates: [],
      matched_rule: null,
      variant_bucket: null,
      attempts: [],
      served_by: null,
    },
    otherCostUsd: 0,
    samples: [],
  };
}

function respond(
  call: ProxyCall,
  plan: RoutePlan,
  served: Served,
  deps: PipelineDeps,
  cache: string,
  hit?: HookAnswer,
): PipelineReply {
  const { target, outcome } = served;
  const requestType = call.codec.requestType;
  const headers = withCallHeaders(call, { 'x-svc-cache': cache });
  if (target) {
    headers['x-svc-model-used'] = target.model;
    headers['x-svc-provider-used'] = target.vendorAsSent;
    headers['x-svc-provider'] = target.vendorAsSent;
  } else if (hit !== undefined) {
    headers['x-svc-model-used'] = hit.modelUsed;
    if (hit.provider !== null) {
      headers['x-svc-provider-used'] = hit.provider;
      headers['x-svc-provider'] = hit.provider;
    }
  }
  if (plan.config) {
    headers['x-svc-config'] = plan.config.slug;
    headers['x-svc-config-version'] = String(plan.config.version);
  }
  const parts = recordParts(requestType);
  parts.target = target;
  parts.modelUsed = hit?.modelUsed;
  parts.trace = served.trace;
  // A cache answers through a beforeAttempt hook and notes each call it looked up; others were not consulted.
  parts.cache = cache === 'HIT' ? 'hit' : call.cacheNote !== undefined ? 'miss' : null;
  parts.healthSamples = served.samples;
  if (!outcome.ok || (!target && cache === 'MISS')) {
    // A caller who hung up before the upstream answered is logged 499, not blamed on the upstream.
    const e = abortedByShutdown(call.signal)
      ? new GatewayError('shutting_down')
      : call.signal.aborted
        ? new GatewayError('client_closed')
        : outcome.ok
          ? new GatewayError('no_eligible_candidate')
          : fromUpstream(outcome.error);
    if (!outcome.ok && !call.signal.aborted) parts.error = outcome.error;
    parts.costUsd = served.otherCostUsd;
    return errorReply(call, e, deps, parts, headers);
  }
  if (outcome.kind === 'json') {
    const cost = priceOf(served, outcome.usage);
    headers['x-svc-cost-usd'] = formatCostHeader(cost.costUsd);
    headers['x-svc-latency-ms'] = (performance.now() - call.started).toFixed(2);
    const body = call.svc?.trace ? { ...outcome.body, 'svc:trace': served.trace } : (outcome.bodyText ?? outcome.body);
    return {
      kind: 'json',
      status: 200,
      headers,
      body,
      done: () => {
        parts.status = 200;
        parts.ttfbMs = outcome.ttfbMs;
        // A hit used no upstream tokens (its body still reports the stored answer's usage).
        parts.usage = target ? outcome.usage : NO_USAGE;
        parts.costUsd = cost.costUsd;
        parts.error = unpriced(served, cost.known);
        parts.responseBody = outcome.bodyText ?? outcome.body;
        if (call.chat?.collectAnswer === true && outcome.ir) parts.answer = outcome.ir;
        finish(deps, call, callRecord(call, parts));
      },
    };
  }
  headers['x-svc-latency-ms'] = (performance.now() - call.started).toFixed(2);
  return {
    kind: 'stream',
    headers,
    relay: outcome.relay,
    errorRecord: (e) => call.codec.errorRecord(e),
    done(summary) {
      const cost = priceOf(served, summary.usage);
      parts.status = abortedByShutdown(call.signal) ? 503 : summary.aborted ? 499 : summary.error ? 502 : 200;
      parts.ttfbMs = outcome.ttfbMs;
      parts.usage = target ? summary.usage : NO_USAGE;
      parts.costUsd = cost.costUsd;
      parts.error = summary.error ?? (summary.aborted ? { message: 'client disconnected' } : null);
      parts.responseBody = { streamed: true, text: summary.text, stop_reason: summary.stopReason ?? null };
      if (parts.status === 200 && summary.response) parts.answer = summary.response;
      finish(deps, call, callRecord(call, parts));
      return { 'x-svc-cost-usd': formatCostHeader(cost.costUsd) };
    },
  };
}

const NO_USAGE: Usage = Object.freeze({ input: 0, output: 0 });

/** The served attempt's cost plus what the other attempts of the plan cost. */
function priceOf(served: Served, usage: Usage): { costUsd: number; known: boolean } {
  const target = served.target;
  if (!target) return { costUsd: 0, known: true };
  const own = computeCost(target.vendor, target.model, usage);
  return { known: own.known, costUsd: Math.round((own.costUsd + served.otherCostUsd) * 1e9) / 1e9 };
}

function unpriced(served: Served, known: boolean): { warning: string } | null {
  const target = served.target;
  if (known || !target) return null;
  return { warning: `no price known for ${target.vendor}/${target.model}; cost recorded as 0` };
}
