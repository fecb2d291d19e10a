// POST /alpha/v1/embeddings through the pipeline: decode -> beforeRoute -> route (direct or
// `@slug`, the same flow as chat) -> dry run? -> attempts -> dimension checks -> encode -> hooks.
import { fromUpstream, GatewayError } from '../errors/gateway-error.ts';
import { computeCost, formatCostHeader } from '../providers/catalog/cost.ts';
import type { RequestFacts } from '../routing/types.ts';
import { acrossCredentials } from './credential-pool.ts';
import type { PipelineDeps } from './deps.ts';
import { decodeEmbeddingBody, type EmbedOutcome, embedOnce, encodeEmbeddingResponse } from './embed-attempt.ts';
import { executeEmbedding } from './embed-route.ts';
import { runBeforeRoute } from './hooks.ts';
import { endCall, errorReply, finish, newCall, withCallHeaders } from './lifecycle.ts';
import { callRecord, directHealthSamples, type HealthSample, recordParts } from './record.ts';
import { dryRunOf, routeCall, routingConfigIdOf } from './route.ts';
import type { PipelineReply, ProxyInput } from './types.ts';

const REQUEST_TYPE = 'embedding';

/** The pinned length, refusing a body that asks for another one (SPEC dimension rule 4). */
function pinnedDimensions(slug: string, pinned: number | null, requested: number | undefined): number | undefined {
  if (pinned !== null && requested !== undefined && requested !== pinned)
    throw new GatewayError('dimension_conflict', { vars: { requested, pinned, slug }, param: 'dimensions' });
  return pinned ?? requested;
}

function embedFacts(
  model: string,
  input: string[],
  dims: number | undefined,
  tags: Record<string, string>,
): RequestFacts {
  const text = input.join('\n');
  return {
    family: 'alpha',
    ir: {
      model,
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text }] }],
      tools: [],
      params: {},
      stream: false,
    },
    tags,
    metadata: {},
    headers: {},
    // Embedding prices are per input token; a character estimate is close enough for ranking.
    estimatedTokens: Math.ceil(text.length / 4),
    kind: 'embedding',
    dimensions: dims,
  };
}

export async function runEmbedding(input: ProxyInput, deps: PipelineDeps): Promise<PipelineReply> {
  const call = newCall(input, 'embeddings');
  const { principal } = input;
  const parts = recordParts(REQUEST_TYPE);
  parts.keepRequestBody = false;
  const headers: Record<string, string> = {};
  try {
    const body = decodeEmbeddingBody(input.body);
    if (deps.hooks.beforeRoute.length > 0) {
      const pending = runBeforeRoute(deps.hooks, call);
      if (pending) await pending;
    }
    const guard = deps.hooks.guard;
    if (guard && !(input.dryRun === true || call.hdr.dryRun)) {
      const subject = { routingConfigId: () => routingConfigIdOf(body.model, principal.orgId, deps.live) };
      const checked = guard.checkTexts(call, body.input, subject, true);
      body.input = checked instanceof Promise ? await checked : checked;
    }
    let dims = body.dimensions;
    const plan = routeCall(
      {
        model: body.model,
        principal,
        hdr: call.hdr,
        kind: 'embedding',
        facts: (pinned) => {
          dims = pinnedDimensions(body.model.slice(1), pinned, body.dimensions);
          return {
            ...embedFacts(body.model, body.input, dims, call.hdr.tags),
            endUser: call.hdr.userId,
            traceId: call.hdr.traceId,
          };
        },
      },
      deps.live,
    );
    if (input.dryRun === true || call.hdr.dryRun)
      return { kind: 'json', status: 200, headers: {}, body: dryRunOf(plan), done: () => endCall(deps, call) };
    const user = call.hdr.userId ?? body.user;
    let outcome: EmbedOutcome;
    if (plan.kind === 'config') {
      headers['x-svc-config'] = plan.config.slug;
      headers['x-svc-config-version'] = String(plan.config.version);
      const served = await executeEmbedding(
        { orgId: principal.orgId, cfg: plan.cfg, input: body.input, user, deadlines: deps.deadlines.answer },
        { decision: plan.decision, dims },
        deps.live,
        input.signal,
      );
      outcome = served.outcome;
      parts.target = served.target;
      parts.trace = served.trace;
      parts.healthSamples = served.samples;
    } else {
      const samples: HealthSample[] = [];
      const served = await acrossCredentials(
        plan.target,
        plan.alternates,
        input.signal,
        (t) =>
          embedOnce(
            { model: t.model, input: body.input, dimensions: body.dimensions, user },
            { vendor: t.vendor, model: t.model, credential: t.credential },
            input.signal,
            undefined,
            deps.deadlines.answer,
          ),
        (t, o, ms) => samples.push(...directHealthSamples(t, o, ms, input.signal)),
      );
      outcome = served.outcome;
      parts.target = served.target;
      parts.healthSamples = samples;
    }
    const target = parts.target;
    if (!outcome.ok || !target) {
      const e = outcome.ok ? new GatewayError('no_eligible_candidate') : fromUpstream(outcome.error);
      if (!outcome.ok) parts.error = outcome.error;
      return errorReply(call, e, deps, parts, headers);
    }
    const usage = { input: outcome.response.usage.input, output: 0 };
    const cost = computeCost(target.vendor, target.model, usage, {
      price: deps.live.priceOverride(principal.orgId, target.vendor, target.model),
    });
    headers['x-svc-model-used'] = target.model;
    headers['x-svc-provider-used'] = target.vendorAsSent;
    headers['x-svc-provider'] = target.vendorAsSent;
    headers['x-svc-cost-usd'] = formatCostHeader(cost.costUsd);
    headers['x-svc-latency-ms'] = (performance.now() - call.started).toFixed(2);
    withCallHeaders(call, headers);
    const responseBody =
      body.encodingFormat === 'float' && outcome.alphaFloatText !== undefined
        ? outcome.alphaFloatText
        : encodeEmbeddingResponse(outcome.response, target.model, body.encodingFormat);
    return {
      kind: 'json',
      status: 200,
      headers,
      body: responseBody,
      // Vectors are not kept in the log: they are large and the input says what was embedded.
      done: () => {
        parts.status = 200;
        parts.usage = usage;
        parts.costUsd = cost.costUsd;
        finish(deps, call, callRecord(call, parts));
      },
    };
  } catch (err) {
    if (err instanceof GatewayError) return errorReply(call, err, deps, parts, headers);
    endCall(deps, call);
    throw err;
  }
}
