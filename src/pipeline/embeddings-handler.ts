// POST /alpha/v1/embeddings: decode, resolve, call, check dimensions, respond with X-Svc-* headers, log.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { InvalidRequestError } from '../families/shared/invalid.ts';
import { computeCost, formatCostHeader } from '../providers/catalog/cost.ts';
import { parseModelRef } from '../providers/registry.ts';
import type { RoutedProxyDeps } from './route.ts';
import { directDryRun } from '../routing/dry-run.ts';
import { executeEmbedding, planEmbedding } from './embed-route.ts';
import type { ChatTarget } from './chat-attempt.ts';
import type { Principal, ProxyLogRow } from './deps.ts';
import { decodeEmbeddingsBody, embedOnce, encodeEmbeddings } from './embed-attempt.ts';
import { errorBody, fromUpstream, type GatewayError } from './errors.ts';
import { readSvcHeaders } from '../families/shared/svc-headers.ts';
import { GatewayFailure, resolveDirectTarget } from './resolve-target.ts';

export interface EmbeddingsContext {
  principal: Principal;
  requestId: string;
  body: unknown;
  headers: IncomingHttpHeaders;
  signal: AbortSignal;
}

export async function handleEmbeddings(
  ctx: EmbeddingsContext,
  reply: FastifyReply,
  deps: RoutedProxyDeps,
): Promise<void> {
  const started = performance.now();
  const createdAt = Date.now();
  const hdr = readSvcHeaders(ctx.headers);
  let target: ChatTarget | undefined;
  // The decision trace of an `@slug` call, recorded in the log row whatever the outcome.
  let trace: unknown = null;
  const row = (status: number, extra: Partial<ProxyLogRow>): ProxyLogRow => ({
    id: ctx.requestId,
    requestType: 'embedding',
    orgId: ctx.principal.orgId,
    projectId: ctx.principal.projectId,
    keyId: ctx.principal.keyId,
    endUser: hdr.userId ?? null,
    tags: hdr.tags,
    traceId: hdr.traceId ?? null,
    conversationId: hdr.conversationId ?? null,
    modelRequested:
      typeof (ctx.body as { model?: unknown })?.model === 'string' ? (ctx.body as { model: string }).model : '',
    modelUsed: target?.model ?? null,
    provider: target?.vendorAsSent ?? null,
    credentialId: target?.credentialId ?? null,
    status,
    latencyMs: performance.now() - started,
    ttfbMs: null,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costUsd: 0,
    error: null,
    trace,
    requestBody: null,
    responseBody: null,
    createdAt,
    ...extra,
  });
  const fail = (e: GatewayError, cause?: unknown): void => {
    if (e.headers) reply.headers(e.headers);
    reply.code(e.status).send(errorBody('alpha', e));
    deps.log(row(e.status, { error: cause ?? { message: e.message, code: e.code ?? null } }));
  };
  try {
    const body = decodeEmbeddingsBody(ctx.body);
    const ref = parseModelRef(body.model);
    let outcome: Awaited<ReturnType<typeof embedOnce>>;
    const configHeaders: Record<string, string> = {};
    if (ref?.kind === 'config') {
      if (hdr.providerKey) {
        throw new GatewayFailure(
          400,
          'X-Svc-Provider-Key is honoured only on direct model calls',
          'provider_key_not_allowed',
          'model',
        );
      }
      const cfg = deps.routing?.config(ctx.principal.orgId, ref.slug);
      if (!deps.routing || !cfg) {
        throw new GatewayFailure(404, `no routing config with slug "${ref.slug}"`, 'routing_config_not_found', 'model');
      }
      const input = {
        orgId: ctx.principal.orgId,
        cfg,
        input: body.input,
        dimensions: body.dimensions,
        user: hdr.userId ?? body.user,
        endUser: hdr.userId ?? body.user,
        traceId: hdr.traceId,
        tags: hdr.tags,
        headers: {},
      };
      const plan = planEmbedding(input, deps.routing);
      if (hdr.dryRun) {
        reply.header('x-svc-request-id', ctx.requestId).code(200).send(plan.envelope);
        return;
      }
      const served = await executeEmbedding(input, plan, deps.routing, ctx.signal);
      target = served.target;
      outcome = served.outcome;
      trace = served.trace;
      configHeaders['x-svc-config'] = cfg.slug;
      configHeaders['x-svc-config-version'] = String(cfg.version);
    } else {
      target = resolveDirectTarget(body.model, ctx.principal, hdr, deps);
      if (hdr.dryRun) {
        reply.header('x-svc-request-id', ctx.requestId).code(200).send(directDryRun(target.model, target.vendorAsSent));
        return;
      }
      outcome = await embedOnce(
        { model: target.model, input: body.input, dimensions: body.dimensions, user: hdr.userId ?? body.user },
        { vendor: target.vendor, model: target.model, credential: target.credential },
        ctx.signal,
      );
    }
    if (!outcome.ok || !target) {
      const error = outcome.ok
        ? { status: 503, kind: 'server' as const, message: 'no candidate answered', retryable: false }
        : outcome.error;
      reply.headers(configHeaders);
      fail(fromUpstreamEmbedding(error), error);
      return;
    }
    const usage = { input: outcome.response.usage.input, output: 0 };
    const cost = computeCost(target.vendor, target.model, usage);
    reply.headers({
      'x-svc-model-used': target.model,
      'x-svc-provider-used': target.vendorAsSent,
      'x-svc-provider': target.vendorAsSent,
      'x-svc-cost-usd': formatCostHeader(cost.costUsd),
      'x-svc-latency-ms': (performance.now() - started).toFixed(2),
      ...configHeaders,
    });
    if (body.encodingFormat === 'float' && outcome.alphaFloatText !== undefined)
      reply.code(200).type('application/json; charset=utf-8').send(outcome.alphaFloatText);
    else reply.code(200).send(encodeEmbeddings(outcome.response, target.model, body.encodingFormat));
    deps.log(row(200, { inputTokens: usage.input, costUsd: cost.costUsd }));
  } catch (err) {
    if (err instanceof InvalidRequestError)
      fail({ status: 400, message: err.message, param: err.param, code: err.code });
    else if (err instanceof GatewayFailure) fail(err);
    else throw err;
  }
}

function fromUpstreamEmbedding(info: import('../ir/types.ts').UpstreamErrorInfo): GatewayError {
  if (info.code === 'dimension_mismatch')
    return { status: 502, message: info.message, code: 'dimension_mismatch', type: 'api_error' };
  return fromUpstream(info);
}
