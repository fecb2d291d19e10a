// The pipeline of a pass-through call (Responses API, images, audio): the same hooks, routing and
// credential failover as chat, but the body goes upstream as the caller wrote it (less what the input
// checks masked) and the answer comes back unread. Only upstreams that speak the endpoint's wire may
// serve it: a direct model of another vendor, or a config with such a candidate, is a 400 that says
// why, never a silent translation.
import { fromUpstream, GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { FailedOutcome } from '../ir/outcome.ts';
import type { UpstreamErrorInfo } from '../ir/types.ts';
import { attemptFailure } from '../providers/attempt-failure.ts';
import type { UpstreamAnswer } from '../providers/capabilities.ts';
import { contentTypeOf } from '../providers/http.ts';
import { canonicalVendor, chatAdapterFor } from '../providers/registry.ts';
import type { VendorId } from '../providers/types.ts';
import { runSequential } from '../routing/execute.ts';
import { decisionTrace } from '../routing/trace.ts';
import type { RequestFacts } from '../routing/types.ts';
import type { RoutedTarget } from './call.ts';
import { acrossCredentials } from './credential-pool.ts';
import type { PipelineDeps } from './deps.ts';
import type { BodyMask, PlaceholderRestore } from './guard.ts';
import { runBeforeRoute } from './hooks.ts';
import { callSlot, endCall, errorReply, finish, newCall, slotOf } from './lifecycle.ts';
import {
  callRecord,
  credentialSample,
  directHealthSamples,
  type HealthSample,
  type RecordParts,
  recordParts,
} from './record.ts';
import { credentialsOf, dryRunOf, routeCall, routingConfigIdOf, targetFor } from './route.ts';
import type { PipelineReply, ProxyCall, ProxyInput, RoutePlan } from './types.ts';

export interface RawCallSpec {
  requestType: string;
  /** The model as the caller named it (a direct name or `@slug`). */
  model: string;
  /** The vendors that speak this endpoint's wire. */
  vendors: readonly VendorId[];
  /** The endpoint in words, for refusals: "the Responses API". */
  what: string;
  /** Text the input checks and the routing strategies read (prompt length, rules on content). */
  promptText: string;
  /**
   * Whether `send` writes its body through `mask`. False for a body that cannot be rewritten (a
   * multipart upload): a mask the checks apply then refuses the call.
   */
  maskable: boolean;
  /**
   * One upstream call on one target; an answer of any status is returned, only no answer throws.
   * `mask` is for the JSON text of the body: it replaces each value the input checks masked with its
   * placeholder (the identity when they masked nothing).
   */
  send(target: RoutedTarget, signal: CallSignal, mask: (json: string) => string): Promise<UpstreamAnswer>;
}

/** The slot the guard stage's `checkTexts` fills on a pass-through call it masked. */
export const BODY_MASK = callSlot<BodyMask>('body-mask');

const unmasked = (json: string): string => json;

/** The upstream answered 2xx: the body is still unread, for the caller to pass on. */
export interface RawServed {
  ok: true;
  call: ProxyCall;
  parts: RecordParts;
  target: RoutedTarget;
  answer: UpstreamAnswer;
  /** X-Svc-* headers of the answer (model, provider, config, rate-limit state). */
  headers: Record<string, string>;
  /** Set when the answer the caller reads must get masked originals back (the log keeps placeholders). */
  restore: PlaceholderRestore | undefined;
}

export type RawCallResult = RawServed | { ok: false; reply: PipelineReply };

/** Who sent a pass-through call: what its pipeline input holds besides the body. */
export type RawCaller = Pick<ProxyInput, 'principal' | 'requestId' | 'headers' | 'signal' | 'rawBody'>;

/** Pass-through endpoints (Responses API, media) speak the alpha family's wire. */
export function rawInput(c: RawCaller, body: unknown): ProxyInput {
  return {
    codec: alphaCodec,
    principal: c.principal,
    requestId: c.requestId,
    body,
    rawBody: c.rawBody,
    headers: c.headers,
    signal: c.signal,
  };
}

type Tried = { ok: true; answer: UpstreamAnswer } | { ok: false; error: UpstreamErrorInfo; answer?: RawFailure };

/** An upstream refusal, read: passed on verbatim when it is the call's last word. */
interface RawFailure {
  status: number;
  contentType: string;
  text: string;
}

async function tryOnce(
  send: RawCallSpec['send'],
  target: RoutedTarget,
  signal: CallSignal,
  mask: BodyMask | undefined,
): Promise<Tried> {
  try {
    const answer = await send(target, signal, mask?.body ?? unmasked);
    if (answer.status < 300) return { ok: true, answer };
    const text = await answer.body.text();
    const error = chatAdapterFor(target.vendor, target.model).decodeError(answer.status, text, answer.headers);
    return { ok: false, error, answer: { status: answer.status, text, contentType: contentTypeOf(answer) } };
  } catch (err) {
    return { ok: false, error: attemptFailure(err) };
  }
}

function refuseVendor(spec: RawCallSpec, vendor: string, model: string): GatewayError {
  return new GatewayError('invalid_request', {
    message: `${model} is served by ${vendor}, which has no ${spec.what}; it is served by ${spec.vendors.join(', ')}`,
    param: 'model',
  });
}

/** Every candidate a config may try must speak the wire: it is refused as a whole otherwise. */
function checkVendors(spec: RawCallSpec, plan: RoutePlan): void {
  if (plan.kind === 'direct') {
    if (!spec.vendors.includes(plan.target.vendor)) throw refuseVendor(spec, plan.target.vendorAsSent, spec.model);
    return;
  }
  const other = plan.decision.candidates.find((c) => {
    const vendor = canonicalVendor(c.provider);
    return vendor === undefined || !spec.vendors.includes(vendor);
  });
  if (other)
    throw new GatewayError('invalid_request', {
      message: `routing config ${spec.model} has the candidate ${other.provider}/${other.model}, which has no ${spec.what}; every candidate must be one of ${spec.vendors.join(', ')}`,
      param: 'model',
    });
}

function facts(spec: RawCallSpec, call: ProxyCall): RequestFacts {
  return {
    family: 'alpha',
    ir: {
      model: spec.model,
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: spec.promptText }] }],
      tools: [],
      params: {},
      stream: false,
    },
    tags: call.hdr.tags,
    endUser: call.hdr.userId,
    traceId: call.hdr.traceId,
    metadata: {},
    headers: {},
    estimatedTokens: Math.ceil(spec.promptText.length / 4),
  };
}

/** A last upstream refusal, as the upstream wrote it; a failure without an answer in the alpha shape. */
function failureReply(
  call: ProxyCall,
  deps: PipelineDeps,
  parts: RecordParts,
  tried: { error: UpstreamErrorInfo; answer?: RawFailure },
  headers: Record<string, string>,
): PipelineReply {
  parts.error = tried.error;
  if (tried.answer === undefined) return errorReply(call, fromUpstream(tried.error), deps, parts, headers);
  const { status, text, contentType } = tried.answer;
  parts.status = status;
  parts.responseBody = text.slice(0, 4096);
  return {
    kind: 'json',
    status,
    headers: { ...headers, 'content-type': contentType },
    body: text,
    done: () => finishRaw(deps, call, parts),
  };
}

/** What the last try came to: the answer with the hooks' reply headers, or the upstream's refusal. */
function settle(
  call: ProxyCall,
  deps: PipelineDeps,
  parts: RecordParts,
  tried: Tried | FailedOutcome,
  target: RoutedTarget,
  headers: Record<string, string>,
  mask: BodyMask | undefined,
): RawCallResult {
  if (call.replyHeaders) Object.assign(headers, call.replyHeaders);
  if (!tried.ok) return { ok: false, reply: failureReply(call, deps, parts, tried, headers) };
  return { ok: true, call, parts, target, answer: tried.answer, headers, restore: mask?.restore };
}

/** A refusal becomes the reply; anything else ends the call's record and goes on up. */
function caught(
  err: unknown,
  call: ProxyCall,
  deps: PipelineDeps,
  parts: RecordParts,
  headers: Record<string, string>,
): RawCallResult {
  if (err instanceof GatewayError) return { ok: false, reply: errorReply(call, err, deps, parts, headers) };
  endCall(deps, call);
  throw err;
}

/** Ends the call: settles what hooks took and runs the afterResponse hooks with its record. */
export function finishRaw(deps: PipelineDeps, call: ProxyCall, parts: RecordParts): void {
  finish(deps, call, callRecord(call, parts));
}

export async function runRawCall(input: ProxyInput, spec: RawCallSpec, deps: PipelineDeps): Promise<RawCallResult> {
  const call = newCall(input, 'raw');
  call.modelRequested = spec.model;
  const parts = recordParts(spec.requestType);
  const headers: Record<string, string> = {};
  try {
    if (deps.hooks.beforeRoute.length > 0) {
      const pending = runBeforeRoute(deps.hooks, call);
      if (pending) await pending;
    }
    const guard = deps.hooks.guard;
    if (guard && spec.promptText !== '' && !(input.dryRun === true || call.hdr.dryRun)) {
      // The masked texts are not sent as such: what was masked is replaced in the body (BODY_MASK).
      const subject = { routingConfigId: () => routingConfigIdOf(spec.model, input.principal.orgId, deps.live) };
      const checked = guard.checkTexts(call, [spec.promptText], subject, spec.maskable);
      if (checked instanceof Promise) await checked;
    }
    const mask = slotOf(call, BODY_MASK);
    const plan = routeCall(
      { model: spec.model, principal: input.principal, hdr: call.hdr, kind: 'chat', facts: () => facts(spec, call) },
      deps.live,
    );
    checkVendors(spec, plan);
    if (input.dryRun === true || call.hdr.dryRun)
      return {
        ok: false,
        reply: { kind: 'json', status: 200, headers: {}, body: dryRunOf(plan), done: () => endCall(deps, call) },
      };
    const samples: HealthSample[] = [];
    parts.healthSamples = samples;
    let tried: Tried | FailedOutcome;
    let target: RoutedTarget;
    if (plan.kind === 'direct') {
      const served = await acrossCredentials(
        plan.target,
        plan.alternates,
        input.signal,
        (t) => tryOnce(spec.send, t, input.signal, mask),
        (t, o, ms) => samples.push(...directHealthSamples(t, o, ms, input.signal)),
      );
      tried = served.outcome;
      target = served.target;
    } else {
      headers['x-svc-config'] = plan.config.slug;
      headers['x-svc-config-version'] = String(plan.config.version);
      // Steps run one at a time, so the credential of the last step tried is the one that served.
      let last: RoutedTarget | undefined;
      const r = await runSequential<Tried>(
        plan.decision,
        {
          async attempt(step, signal) {
            const [first, ...others] = credentialsOf(deps.live, input.principal.orgId, step.ref);
            if (!first) return undefined;
            const served = await acrossCredentials(
              targetFor(step.ref, first),
              others,
              signal,
              (t) => tryOnce(spec.send, t, signal, mask),
              (t, o, ms) => samples.push(credentialSample(t, o, ms)),
            );
            last = served.target;
            return served.outcome;
          },
          observe(ref, ok, latencyMs, status, kind) {
            samples.push({ ref, ok, latencyMs, status, kind });
          },
        },
        input.signal,
      );
      const attempts = r.attempts;
      if (attempts.length > 0) attempts[attempts.length - 1].served = r.outcome.ok;
      const by = r.outcome.ok && last ? { model: last.model, provider: last.vendorAsSent } : null;
      parts.trace = decisionTrace(plan.cfg.strategy, plan.config, plan.decision, attempts, by);
      if (r.step === undefined || last === undefined)
        return { ok: false, reply: errorReply(call, new GatewayError('no_eligible_candidate'), deps, parts, headers) };
      tried = r.outcome;
      target = last;
    }
    parts.target = target;
    headers['x-svc-model-used'] = target.model;
    headers['x-svc-provider-used'] = target.vendorAsSent;
    headers['x-svc-provider'] = target.vendorAsSent;
    return settle(call, deps, parts, tried, target, headers, mask);
  } catch (err) {
    return caught(err, call, deps, parts, headers);
  }
}

/**
 * A follow-up call that can only go to one place (a stored response lives on the credential that
 * made it): the same hooks and record as any call, one attempt, no failover.
 */
export async function runPinnedCall(
  input: ProxyInput,
  spec: Pick<RawCallSpec, 'requestType' | 'model' | 'send'>,
  target: RoutedTarget,
  deps: PipelineDeps,
): Promise<RawCallResult> {
  const call = newCall(input, 'raw');
  call.modelRequested = spec.model;
  const parts = recordParts(spec.requestType);
  parts.target = target;
  const headers: Record<string, string> = { 'x-svc-provider': target.vendorAsSent };
  try {
    if (deps.hooks.beforeRoute.length > 0) {
      const pending = runBeforeRoute(deps.hooks, call);
      if (pending) await pending;
    }
    const tried = await tryOnce(spec.send, target, input.signal, undefined);
    return settle(call, deps, parts, tried, target, headers, undefined);
  } catch (err) {
    return caught(err, call, deps, parts, headers);
  }
}

/** What a pass-through endpoint hands the HTTP layer: JSON text, or bytes piped as they arrive. */
export type RawReply =
  | Extract<PipelineReply, { kind: 'json' }>
  | {
      kind: 'pipe';
      status: number;
      headers: Record<string, string>;
      body: AsyncIterable<Uint8Array>;
      /** Called once the caller got every byte (true) or went away first (false). */
      done(finished: boolean): void;
    };

/** A reply that is only an error or a dry run (never a pipe). */
export function asRawReply(reply: PipelineReply): RawReply {
  if (reply.kind !== 'json') throw new Error('a pass-through call never streams through the relay');
  return reply;
}

/** A request refused before routing (a malformed form): answered and logged like any refusal. */
export function refuseRaw(input: ProxyInput, requestType: string, e: GatewayError, deps: PipelineDeps): RawReply {
  const call = newCall(input, 'raw');
  return asRawReply(errorReply(call, e, deps, recordParts(requestType)));
}
