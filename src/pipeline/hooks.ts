// The extension points of the request pipeline. Features (limits, cache, logs, webhooks...) register
// here; the pipeline calls them in registration order. A stage with no hook costs one length check.
import type { JsonOutcome, StreamOutcome } from '../ir/outcome.ts';
import type { CallRecord } from './record.ts';
import type { ProxyCall, RoutePlan } from './types.ts';

/** A call answered by a hook instead of an upstream (a cache hit). */
export interface HookAnswer {
  outcome: JsonOutcome | StreamOutcome;
  /** The model that produced the answer originally, for `X-Svc-Model-Used` and the log. */
  modelUsed: string;
  /** The provider that produced it, for `X-Svc-Provider` (the call itself reached none). */
  provider: string | null;
}

/** Runs after decode and authorization, before routing; throws a GatewayError to refuse the call. */
export type BeforeRouteHook = (call: ProxyCall) => void | Promise<void>;
/** Runs before the first upstream attempt; returning an answer answers the call without one (a cache hit). */
export type BeforeAttemptHook = (
  call: ProxyCall,
  plan: RoutePlan,
) => HookAnswer | undefined | Promise<HookAnswer | undefined>;
/**
 * Runs once the answer is complete: just before a JSON answer is written (so the log row is journaled
 * before the caller can see it), after the last byte of a stream. Synchronous; never awaited.
 */
export type AfterResponseHook = (record: CallRecord) => void;

export class PipelineHooks {
  readonly beforeRoute: BeforeRouteHook[] = [];
  readonly beforeAttempt: BeforeAttemptHook[] = [];
  readonly afterResponse: AfterResponseHook[] = [];

  onBeforeRoute(h: BeforeRouteHook): this {
    this.beforeRoute.push(h);
    return this;
  }

  onBeforeAttempt(h: BeforeAttemptHook): this {
    this.beforeAttempt.push(h);
    return this;
  }

  onAfterResponse(h: AfterResponseHook): this {
    this.afterResponse.push(h);
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
 * Runs the beforeAttempt hooks in order until one answers. Synchronous while the hooks are (a cache
 * the project has not enabled answers at once), like runBeforeRoute.
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

/**
 * Adds work to run when the call ends (see ProxyCall.onEnd), after what earlier hooks added; one
 * failing does not stop the next.
 */
export function addOnEnd(call: ProxyCall, fn: (record: CallRecord | undefined) => void): void {
  const before = call.onEnd;
  call.onEnd =
    before === undefined
      ? fn
      : (record) => {
          try {
            before(record);
          } finally {
            fn(record);
          }
        };
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
