// The extension points of the request pipeline. A feature (limits, semantic answers, request log, metrics,
// health...) is one PipelineFeature registered with `use`; the gateway registers them all in one
// list (app.ts), and that list is their order. A stage with no hook costs one length check.
//
// The contract a hook can rely on:
// - beforeRoute and beforeAttempt hooks run in registration order; afterResponse hooks run in
//   reverse registration order, so the first feature registered sees a call first and last.
// - beforeRoute runs after decode and authorization. It may refuse the call by throwing a
//   GatewayError, and it may touch the call's replyHeaders, hookTrace, its own slot (lifecycle.ts
//   `callSlot`), a chat call's `collectAnswer` and `onSend` (call.ts), and add end-of-call work
//   (`atCallEnd`) and work for when the call is held (`atHold`); nothing else of the call.
// - The guard stage (at most one feature, guardrails) runs after beforeRoute and before routing on
//   chat, embeddings and pass-through calls. Unlike the other hooks it may rewrite what the call
//   sends (`call.chat.ir`, the texts it is handed) and attach the answer's checks (`ChatCall.guard`).
// - beforeAttempt runs for chat calls only, after routing, before the first upstream attempt. It may
//   touch what beforeRoute may, ask for the answer in IR form (`ChatCall.collectAnswer`), and answer
//   the call itself (a HookAnswer): later beforeAttempt hooks are then skipped.
// - End-of-call work runs exactly once per call that got past the hooks that added it, newest first,
//   with the record, or with undefined when the call ended without one. It may note the feature's
//   log columns on the record (`noteFeature`) and nothing else of it.
// - A call may be held past its answer (a background response's create call waits for the response,
//   which another instance may finish). Work added with `atHold` runs once, as such a call's answer
//   goes out, with the record as it stands then, which it reads and never changes; end-of-call work
//   and afterResponse hooks still run when (and where) the call ends. A call not held never runs it.
// - afterResponse hooks run once the answer is complete, after all end-of-call work, so they see
//   every feature's notes. They read the record and never change it; they are synchronous and
//   never awaited, and one that throws is reported without stopping the others.
import type { JsonOutcome, StreamOutcome } from '../ir/outcome.ts';
import type { TraceLinks } from '../ports/trace-links.ts';
import type { CallRecord } from './record.ts';
import type { ProxyCall, RoutePlan } from './types.ts';

/**
 * What scope matching needs to know beyond the principal: the routing config the call named, by id.
 * A function, so that an org without policies never pays for resolving it.
 */
export interface GuardSubject {
  routingConfigId(): string | null;
}

/**
 * The stage itself, registered with the pipeline's features. `check` runs after the beforeRoute
 * hooks and before routing: it may replace `call.chat.ir` (masked), set `call.chat.guard`, replace
 * the body kept for the log (`call.rawBody`) and refuse the call by throwing a GatewayError.
 */
export interface GuardStage {
  check(call: ProxyCall, subject: GuardSubject): void | Promise<void>;
  /**
   * The input checks over bare texts (embeddings input, an image prompt, a Responses input): the
   * texts to send (masked), or a GatewayError thrown. `canMask: false` is a pass-through body the
   * gateway cannot rewrite: a mask there refuses the call rather than send what it would mask.
   */
  checkTexts(call: ProxyCall, texts: string[], subject: GuardSubject, canMask: boolean): string[] | Promise<string[]>;
  /** What a dry run lists: the policies that would apply to the call. */
  describe(call: ProxyCall, subject: GuardSubject): unknown[];
}

/** A call answered by a hook instead of an upstream. */
export interface HookAnswer {
  outcome: JsonOutcome | StreamOutcome;
  /** The model that produced the answer originally, for `X-Svc-Model-Used` and the log. */
  modelUsed: string;
  /** The vendor that produced it, for `X-Svc-Provider` (the call itself reached none). */
  vendor: string | null;
  /** What answered, as the decision trace's policy. */
  policy: string;
}

/** See the contract above; throws a GatewayError to refuse the call. */
export type BeforeRouteHook = (call: ProxyCall) => void | Promise<void>;
/** See the contract above; returning an answer answers the call without an upstream. */
export type BeforeAttemptHook = (
  call: ProxyCall,
  plan: RoutePlan,
) => HookAnswer | undefined | Promise<HookAnswer | undefined>;
/**
 * Runs just before a JSON answer is written (so the log row is journaled before the caller can see
 * it), after the last byte of a stream.
 */
export type AfterResponseHook = (record: CallRecord) => void;

/** One feature's hooks; a feature has the stages it needs and no others. */
export interface PipelineFeature {
  readonly beforeRoute?: BeforeRouteHook;
  readonly beforeAttempt?: BeforeAttemptHook;
  readonly afterResponse?: AfterResponseHook;
  /** The guard stage (guard.ts); at most one feature has it. */
  readonly guard?: GuardStage;
  /** Spans for work done after its call (tracing on only); at most one feature has it. */
  readonly traceLinks?: TraceLinks;
}

export class PipelineHooks {
  readonly beforeRoute: BeforeRouteHook[] = [];
  readonly beforeAttempt: BeforeAttemptHook[] = [];
  /** Already in the order they run: the latest registered first. */
  readonly afterResponse: AfterResponseHook[] = [];
  guard: GuardStage | undefined;
  traceLinks: TraceLinks | undefined;

  use(feature: PipelineFeature): this {
    if (feature.guard) this.guard = feature.guard;
    if (feature.traceLinks) this.traceLinks = feature.traceLinks;
    if (feature.beforeRoute) this.beforeRoute.push(feature.beforeRoute);
    if (feature.beforeAttempt) this.beforeAttempt.push(feature.beforeAttempt);
    if (feature.afterResponse) this.afterResponse.unshift(feature.afterResponse);
    return this;
  }
}

/**
 * Runs the beforeRoute hooks in order. Synchronous as long as every hook answers synchronously (a
 * limit check with nothing to check), so the common call pays no promise for them.
 */
export function runBeforeRoute(hooks: PipelineHooks, call: ProxyCall, from = 0): void | Promise<void> {
  const list = hooks.beforeRoute;
  for (let i = from; i < list.length; i++) {
    const pending = list[i](call);
    if (pending !== undefined) return pending.then(() => runBeforeRoute(hooks, call, i + 1));
  }
}

/**
 * Runs the beforeAttempt hooks in order until one answers. Synchronous while the hooks are (a
 * feature the project has not enabled answers at once), like runBeforeRoute.
 */
export function runBeforeAttempt(
  hooks: PipelineHooks,
  call: ProxyCall,
  plan: RoutePlan,
  from = 0,
): HookAnswer | undefined | Promise<HookAnswer | undefined> {
  const list = hooks.beforeAttempt;
  for (let i = from; i < list.length; i++) {
    const answer = list[i](call, plan);
    if (answer instanceof Promise) return answer.then((a) => a ?? runBeforeAttempt(hooks, call, plan, i + 1));
    if (answer) return answer;
  }
  return undefined;
}

/** A failing hook must not take the others (or the caller's answer) down with it. */
export function runAfterResponse(hooks: PipelineHooks, record: CallRecord, onError: (err: unknown) => void): void {
  for (const h of hooks.afterResponse) {
    try {
      h(record);
    } catch (err) {
      onError(err);
    }
  }
}
