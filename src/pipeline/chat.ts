// The chat flow shared by both families: decode -> beforeRoute hooks -> route -> dry run? ->
// beforeAttempt hooks (may answer) -> execute attempts -> encode in the caller's family with X-Svc-*
// headers -> afterResponse hooks once the answer is out.
import { abortedByShutdown, fromUpstream, GatewayError } from '../errors/gateway-error.ts';
import type { JsonOutcome } from '../ir/outcome.ts';
import type { ChatResponse, Usage } from '../ir/types.ts';
import { computeCost, formatCostHeader } from '../providers/catalog/cost.ts';
import { requestFacts } from '../routing/planner.ts';
import type { ChatCall } from './call.ts';
import { answerText } from './chat-attempt.ts';
import type { PipelineDeps } from './deps.ts';
import { executeChat, type Served } from './executor.ts';
import type { AnswerGuard } from './guard.ts';
import { type HookAnswer, runBeforeAttempt, runBeforeRoute } from './hooks.ts';
import { endCall, errorReply, finish, newCall, withCallHeaders } from './lifecycle.ts';
import { callRecord, recordParts } from './record.ts';
import { dryRunOf, routeCall, routingConfigIdOf } from './route.ts';
import type { LiveState, PipelineReply, ProxyCall, ProxyInput, RoutePlan } from './types.ts';
import { noteWarnings } from './warnings.ts';

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
      rawBody: input.rawBody,
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
    const guard = deps.hooks.guard;
    const dry = input.dryRun === true || call.hdr.dryRun;
    const subject = { routingConfigId: () => routingConfigIdOf(ir.model, input.principal.orgId, deps.live) };
    if (guard && !dry) {
      const pending = guard.check(call, subject);
      if (pending) await pending;
    }
    const plan = routeCall(
      {
        model: ir.model,
        principal: input.principal,
        hdr: call.hdr,
        kind: 'chat',
        facts: () =>
          requestFacts({
            family: input.codec.family,
            ir: chat.ir,
            svc: decoded.svc,
            hdr: call.hdr,
            headers: input.headers,
          }),
      },
      deps.live,
    );
    // No upstream call and no log row: a dry run changes nothing and costs nothing.
    if (dry) {
      const envelope = dryRunOf(plan);
      // Listed only when policies apply, so an org without guardrails gets SPEC's envelope unchanged.
      const policies = guard ? guard.describe(call, subject) : [];
      const body = policies.length > 0 ? { dry_run: { ...envelope.dry_run, guardrails: policies } } : envelope;
      return { kind: 'json', status: 200, headers: {}, body, done: () => endCall(deps, call) };
    }
    if (chat.ir.stream && plan.kind === 'config') {
      const mode = plan.decision.mode;
      if (mode === 'cascade' || mode === 'parallel_judge')
        throw new GatewayError('stream_not_supported', { vars: { strategy: plan.cfg.strategy }, param: 'stream' });
    }
    let answer = deps.hooks.beforeAttempt.length > 0 ? runBeforeAttempt(deps.hooks, call, plan) : undefined;
    if (answer instanceof Promise) answer = await answer;
    if (answer) return await respond(call, plan, hookServed(plan, answer), deps, answer);
    const served = await executeChat(chat, plan, input.principal.orgId, deps.live, input.signal);
    return await respond(call, plan, served, deps);
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
      policy: answer.policy,
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

async function respond(
  call: ProxyCall,
  plan: RoutePlan,
  served: Served,
  deps: PipelineDeps,
  byHook?: HookAnswer,
): Promise<PipelineReply> {
  const { target, outcome } = served;
  const requestType = call.codec.requestType;
  if (plan.alias) served.trace.alias = plan.alias;
  const headers = withCallHeaders(call, {});
  if (target) {
    headers['x-svc-model-used'] = target.model;
    headers['x-svc-provider-used'] = target.vendorAsSent;
    headers['x-svc-provider'] = target.vendorAsSent;
  } else if (byHook !== undefined) {
    headers['x-svc-model-used'] = byHook.modelUsed;
    if (byHook.vendor !== null) {
      headers['x-svc-provider-used'] = byHook.vendor;
      headers['x-svc-provider'] = byHook.vendor;
    }
  }
  if (plan.config) {
    headers['x-svc-config'] = plan.config.slug;
    headers['x-svc-config-version'] = String(plan.config.version);
  }
  const parts = recordParts(requestType);
  parts.target = target;
  parts.modelUsed = byHook?.modelUsed;
  parts.trace = served.trace;
  parts.healthSamples = served.samples;
  if (!outcome.ok || (!target && byHook === undefined)) {
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
  noteWarnings(outcome, served.trace, headers);
  const guard = call.chat?.guard;
  if (outcome.kind === 'json') {
    const cost = priceOf(served, outcome.usage, deps.live, call.principal.orgId);
    let answer = outcome;
    let atRest: ChatResponse | undefined;
    if (guard && outcome.ir) {
      const checked = await guard.checkAnswer(outcome.ir);
      if (checked instanceof GatewayError) {
        parts.costUsd = cost.costUsd;
        parts.usage = target ? outcome.usage : NO_USAGE;
        guardHeader(guard, headers);
        return errorReply(call, checked, deps, parts, headers);
      }
      answer = guardedOutcome(call, outcome, checked.value);
      atRest = checked.atRest;
      guardHeader(guard, headers);
    }
    headers['x-svc-cost-usd'] = formatCostHeader(cost.costUsd);
    headers['x-svc-latency-ms'] = (performance.now() - call.started).toFixed(2);
    const body = call.svc?.trace ? { ...answer.body, 'svc:trace': served.trace } : (answer.bodyText ?? answer.body);
    return {
      kind: 'json',
      status: 200,
      headers,
      body,
      done: () => {
        parts.status = 200;
        parts.ttfbMs = outcome.ttfbMs;
        // A hook's answer used no upstream tokens (its body still reports the stored answer's usage).
        parts.usage = target ? outcome.usage : NO_USAGE;
        parts.costUsd = cost.costUsd;
        parts.error = unpriced(served, cost.known);
        // Kept at rest: the input's placeholders left in, output matches masked.
        parts.responseBody = atRest ? encodeAnswer(call, atRest) : (outcome.bodyText ?? outcome.body);
        if (call.chat?.collectAnswer === true && outcome.ir) parts.answer = atRest ?? outcome.ir;
        finish(deps, call, callRecord(call, parts));
      },
    };
  }
  headers['x-svc-latency-ms'] = (performance.now() - call.started).toFixed(2);
  // A stream's header says what the input stage decided; output verdicts are in the trace and log.
  if (guard) guardHeader(guard, headers);
  return {
    kind: 'stream',
    headers,
    relay: outcome.relay,
    errorRecord: (e) => call.codec.errorRecord(e),
    done(summary) {
      const cost = priceOf(served, summary.usage, deps.live, call.principal.orgId);
      parts.status = abortedByShutdown(call.signal)
        ? 503
        : summary.aborted
          ? 499
          : summary.error
            ? summary.error.code === 'guardrail_blocked'
              ? 400
              : 502
            : 200;
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

function guardHeader(guard: AnswerGuard, headers: Record<string, string>): void {
  const v = guard.header();
  if (v !== undefined) headers['x-svc-guardrails'] = v;
}

function encodeAnswer(call: ProxyCall, res: ChatResponse): Record<string, unknown> {
  const chat = call.chat;
  return call.codec.encode(res, { requestId: call.requestId, created: chat?.created ?? 0, model: res.model });
}

/** The answer the guard let through, in the caller's family (never the upstream's own bytes). */
function guardedOutcome(call: ProxyCall, outcome: JsonOutcome, res: ChatResponse): JsonOutcome {
  if (res === outcome.ir) return outcome;
  return { ...outcome, body: encodeAnswer(call, res), bodyText: undefined, ir: res, text: answerText(res) };
}

const NO_USAGE: Usage = Object.freeze({ input: 0, output: 0 });

/** The served attempt's cost plus what the other attempts of the plan cost. */
function priceOf(served: Served, usage: Usage, live: LiveState, orgId: string): { costUsd: number; known: boolean } {
  const target = served.target;
  if (!target) return { costUsd: 0, known: true };
  const own = computeCost(target.vendor, target.model, usage, {
    price: live.priceOverride(orgId, target.vendor, target.model),
  });
  return { known: own.known, costUsd: Math.round((own.costUsd + served.otherCostUsd) * 1e9) / 1e9 };
}

function unpriced(served: Served, known: boolean): { warning: string } | null {
  const target = served.target;
  if (known || !target) return null;
  return { warning: `no price known for ${target.vendor}/${target.model}; cost recorded as 0` };
}
