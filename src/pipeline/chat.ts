// The chat path shared by both families: decode -> resolve model and credential -> attempt(s) ->
// respond in the caller's wire shape with X-Svc-* headers -> log row behind the response.
import type { FastifyReply } from 'fastify';
import { decodeAlphaChat } from '../families/alpha/codec/decode-request.ts';
import { decodeBetaMessages } from '../families/beta/codec/decode-request.ts';
import { InvalidRequestError } from '../families/shared/invalid.ts';
import type { SvcExtensions } from '../families/shared/svc.ts';
import type { ChatRequest, Usage } from '../ir/types.ts';
import { computeCost, formatCostHeader } from '../providers/catalog/cost.ts';
import { type RoutedProxyDeps, routeChat, type Served } from './route.ts';
import type { ConfigRef } from '../routing/trace.ts';
import type { ChatCall, Family } from './chat-attempt.ts';
import type { Principal, ProxyDeps, ProxyLogRow } from './deps.ts';
import { errorBody, fromUpstream, type GatewayError } from './errors.ts';
import { readSvcHeaders, type SvcHeaders } from '../families/shared/svc-headers.ts';
import { GatewayFailure } from './resolve-target.ts';

export interface ChatContext {
  family: Family;
  principal: Principal;
  requestId: string;
  body: unknown;
  /** The body as the caller sent it, logged instead of serializing `body` again. */
  rawBody?: string;
  headers: import('node:http').IncomingHttpHeaders;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
  /** `POST /alpha/v1/dry-run`: always answer with the routing decision. */
  dryRun?: boolean;
}

interface Prepared {
  call: ChatCall;
  svc: SvcExtensions;
  hdr: SvcHeaders;
  modelRequested: string;
  config: ConfigRef | null;
}

const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

export async function handleChat(ctx: ChatContext, reply: FastifyReply, deps: RoutedProxyDeps): Promise<void> {
  const started = performance.now();
  const createdAt = Date.now();
  let prepared: Prepared;
  let execute: () => Promise<Served>;
  try {
    prepared = prepare(ctx);
    const step = routeChat(
      {
        family: ctx.family,
        principal: ctx.principal,
        call: prepared.call,
        svc: prepared.svc,
        hdr: prepared.hdr,
        headers: ctx.headers,
        dryRun: ctx.dryRun === true || prepared.hdr.dryRun,
        signal: ctx.signal,
      },
      deps,
    );
    if (step.kind === 'dry_run') {
      // No upstream call and no log row: a dry run changes nothing and costs nothing.
      reply.header('x-svc-request-id', ctx.requestId).code(200).send(step.envelope);
      return;
    }
    prepared.config = step.config;
    execute = step.execute;
  } catch (err) {
    const e = asGatewayError(err);
    sendError(reply, ctx.family, e);
    deps.log(baseRow(ctx, createdAt, started, { status: e.status, error: e, modelRequested: modelOf(ctx.body) }));
    return;
  }
  const served = await execute();
  await respond(ctx, reply, deps, prepared, served, started, createdAt);
}

function prepare(ctx: ChatContext): Prepared {
  const decoded = ctx.family === 'alpha' ? decodeAlphaChat(ctx.body) : decodeBetaMessages(ctx.body);
  const hdr = readSvcHeaders(ctx.headers);
  const ir: ChatRequest = decoded.ir;
  const modelRequested = ir.model;
  if (hdr.userId) ir.params.user = hdr.userId;
  const body = ctx.body as Record<string, unknown>;
  const call: ChatCall = {
    family: ctx.family,
    ir,
    body,
    requestId: ctx.requestId,
    created: Math.floor(Date.now() / 1000),
    includeUsage: 'includeUsage' in decoded ? decoded.includeUsage === true : false,
    userOverride: hdr.userId,
    upstreamHeaders: upstreamHeadersFor(ctx.family, hdr),
  };
  return {
    call,
    svc: decoded.svc,
    hdr,
    modelRequested,
    config: null,
  };
}

function upstreamHeadersFor(family: Family, hdr: SvcHeaders): Record<string, string> | undefined {
  if (family !== 'beta') return undefined;
  const h: Record<string, string> = { 'anthropic-version': hdr.altVersion ?? DEFAULT_ANTHROPIC_VERSION };
  if (hdr.altBeta) h['anthropic-beta'] = hdr.altBeta;
  return h;
}

async function respond(
  ctx: ChatContext,
  reply: FastifyReply,
  deps: ProxyDeps,
  p: Prepared,
  served: Served,
  started: number,
  createdAt: number,
): Promise<void> {
  const { target, outcome } = served;
  const common: Record<string, string> = { 'x-svc-cache': 'MISS' };
  if (target) {
    common['x-svc-model-used'] = target.model;
    common['x-svc-provider-used'] = target.vendorAsSent;
    common['x-svc-provider'] = target.vendorAsSent;
  }
  if (p.config) {
    common['x-svc-config'] = p.config.slug;
    common['x-svc-config-version'] = String(p.config.version);
  }
  const rowBase = {
    modelRequested: p.modelRequested,
    modelUsed: target?.model ?? null,
    provider: target?.vendorAsSent ?? null,
    credentialId: target?.credentialId ?? null,
    trace: served.trace,
  };
  if (!outcome.ok || !target) {
    // A caller who hung up before the upstream answered is logged 499, not blamed on the upstream.
    const e = ctx.signal.aborted
      ? { status: 499, message: 'client disconnected' }
      : outcome.ok
        ? { status: 503, message: 'no candidate answered', code: 'no_eligible_candidate' }
        : fromUpstream(outcome.error);
    reply.headers(common);
    sendError(reply, ctx.family, e);
    const error = outcome.ok ? e : outcome.error;
    deps.log(
      baseRow(
        ctx,
        createdAt,
        started,
        { ...rowBase, status: e.status, error, costUsd: served.otherCostUsd },
        p,
        deps,
        undefined,
      ),
    );
    return;
  }
  if (outcome.kind === 'json') {
    const own = computeCost(target.vendor, target.model, outcome.usage);
    const cost = { ...own, costUsd: Math.round((own.costUsd + served.otherCostUsd) * 1e9) / 1e9 };
    const latency = performance.now() - started;
    reply.headers({
      ...common,
      'x-svc-cost-usd': formatCostHeader(cost.costUsd),
      'x-svc-latency-ms': latency.toFixed(2),
    });
    if (p.svc.trace) reply.code(200).send({ ...outcome.body, 'svc:trace': served.trace });
    else if (outcome.bodyText !== undefined)
      reply.code(200).type('application/json; charset=utf-8').send(outcome.bodyText);
    else reply.code(200).send(outcome.body);
    deps.log(
      baseRow(
        ctx,
        createdAt,
        started,
        {
          ...rowBase,
          status: 200,
          ttfbMs: outcome.ttfbMs,
          usage: outcome.usage,
          costUsd: cost.costUsd,
          error: cost.known
            ? null
            : { warning: `no price known for ${target.vendor}/${target.model}; cost recorded as 0` },
        },
        p,
        deps,
        outcome.bodyText ?? outcome.body,
      ),
    );
    return;
  }
  // Streams: headers go out before usage is known, so the cost travels as an HTTP trailer too.
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-svc-request-id': ctx.requestId,
    ...common,
    'x-svc-latency-ms': (performance.now() - started).toFixed(2),
    trailer: 'x-svc-cost-usd',
  });
  const summary = await outcome.relay.run(
    {
      // Records decoded from one upstream read leave in one socket write instead of one each.
      write: (s) => {
        if (raw.writableCorked === 0) {
          raw.cork();
          process.nextTick(() => raw.uncork());
        }
        return raw.write(s);
      },
      // A caller who hangs up never drains; 'close' ends the wait (the abort signal stops the relay).
      drain: () =>
        new Promise((resolve) => {
          const done = (): void => {
            raw.off('drain', done);
            raw.off('close', done);
            resolve();
          };
          raw.once('drain', done);
          raw.once('close', done);
        }),
    },
    ctx.signal,
  );
  const own = computeCost(target.vendor, target.model, summary.usage);
  const cost = { ...own, costUsd: Math.round((own.costUsd + served.otherCostUsd) * 1e9) / 1e9 };
  if (!raw.destroyed) {
    raw.addTrailers({ 'x-svc-cost-usd': formatCostHeader(cost.costUsd) });
    raw.end();
  }
  deps.log(
    baseRow(
      ctx,
      createdAt,
      started,
      {
        ...rowBase,
        status: summary.aborted ? 499 : summary.error ? 502 : 200,
        ttfbMs: outcome.ttfbMs,
        usage: summary.usage,
        costUsd: cost.costUsd,
        error: summary.error ?? (summary.aborted ? { message: 'client disconnected' } : null),
      },
      p,
      deps,
      { streamed: true, text: summary.text, stop_reason: summary.stopReason ?? null },
    ),
  );
}

interface RowParts {
  status: number;
  modelRequested: string;
  modelUsed?: string | null;
  provider?: string | null;
  credentialId?: string | null;
  ttfbMs?: number;
  usage?: Usage;
  costUsd?: number;
  error?: unknown;
  trace?: unknown;
}

function baseRow(
  ctx: ChatContext,
  createdAt: number,
  started: number,
  r: RowParts,
  p?: Prepared,
  deps?: ProxyDeps,
  responseBody?: unknown,
): ProxyLogRow {
  const bodies = deps?.logBodies(ctx.principal.projectId) ?? true;
  const meta = p?.svc.metadata;
  const metaStr = (k: string): string | null => (typeof meta?.[k] === 'string' ? (meta[k] as string) : null);
  return {
    id: ctx.requestId,
    requestType: ctx.family === 'alpha' ? 'chat_completion' : 'message',
    orgId: ctx.principal.orgId,
    projectId: ctx.principal.projectId,
    keyId: ctx.principal.keyId,
    endUser: p ? (p.hdr.userId ?? p.svc.endUser ?? p.call.ir.params.user ?? metaStr('user_id')) : null,
    tags: p ? { ...p.svc.tags, ...p.hdr.tags } : {},
    traceId: p?.hdr.traceId ?? metaStr('trace_id'),
    conversationId: p?.hdr.conversationId ?? metaStr('conversation_id'),
    modelRequested: r.modelRequested,
    modelUsed: r.modelUsed ?? null,
    provider: r.provider ?? null,
    credentialId: r.credentialId ?? null,
    status: r.status,
    latencyMs: performance.now() - started,
    ttfbMs: r.ttfbMs ?? null,
    inputTokens: r.usage?.input ?? 0,
    outputTokens: r.usage?.output ?? 0,
    cacheReadTokens: r.usage?.cacheRead ?? 0,
    cacheCreationTokens: r.usage?.cacheWrite ?? 0,
    costUsd: r.costUsd ?? 0,
    error: r.error ?? null,
    trace: r.trace ?? null,
    requestBody: bodies ? (ctx.rawBody ?? ctx.body) : null,
    responseBody: bodies ? (responseBody ?? null) : null,
    createdAt,
  };
}

function asGatewayError(err: unknown): GatewayError {
  if (err instanceof InvalidRequestError)
    return { status: 400, message: err.message, param: err.param, code: err.code };
  if (err instanceof GatewayFailure) return err;
  throw err;
}

function modelOf(body: unknown): string {
  const m = (body as { model?: unknown } | null)?.model;
  return typeof m === 'string' ? m : '';
}

export function sendError(reply: FastifyReply, family: Family, e: GatewayError): void {
  if (e.headers) reply.headers(e.headers);
  reply.code(e.status).send(errorBody(family, e));
}
