// Replay: a logged chat or messages request runs again through the pipeline, in its own family,
// under another routing config or model. It goes through every hook a live call does (so it is
// logged, with `replay_of`), as the project the original call belonged to.
import { GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { betaCodec } from '../families/beta/codec.ts';
import type { FamilyCodec } from '../families/shared/codec.ts';
import type { Principal } from '../live/principals.ts';
import { runChat } from '../pipeline/chat.ts';
import { pipelineDeadlines } from '../pipeline/deps.ts';
import type { PipelineReply } from '../pipeline/types.ts';
import type { RequestLogRow } from '../store/request-logs.ts';
import { newId } from '../util/ids.ts';
import { liveStateOf } from './live-state.ts';
import type { Services } from './services.ts';

const CODECS: Record<string, FamilyCodec> = {
  [alphaCodec.requestType]: alphaCodec,
  [betaCodec.requestType]: betaCodec,
};

export interface ReplayInput {
  routing_config?: string;
  model?: string;
  dry_run?: boolean;
}

function storedRequest(row: RequestLogRow): Record<string, unknown> {
  if (row.requestBody === null)
    throw new GatewayError('log_body_not_retained', {
      vars: { id: row.id, why: 'bodies were not logged or have expired' },
    });
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.requestBody);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new GatewayError('log_body_not_retained', {
      vars: { id: row.id, why: 'it was cut at SWITCHYARD_LOG_BODY_MAX_KB' },
    });
  return parsed as Record<string, unknown>;
}

function replyBody(reply: Extract<PipelineReply, { kind: 'json' }>): unknown {
  return typeof reply.body === 'string' ? JSON.parse(reply.body) : reply.body;
}

export async function replayLogEntry(
  svc: Services,
  caller: Principal,
  row: RequestLogRow,
  input: ReplayInput,
): Promise<unknown> {
  const codec = CODECS[row.requestType];
  if (!codec) throw new GatewayError('log_not_replayable', { vars: { id: row.id, type: row.requestType } });
  const body = storedRequest(row);
  if (input.routing_config !== undefined)
    body.model = input.routing_config.startsWith('@') ? input.routing_config : `@${input.routing_config}`;
  else if (input.model !== undefined) body.model = input.model;
  // The answer comes back inside a JSON envelope, so a streamed original is replayed whole.
  delete body.stream;
  delete body.stream_options;
  const requestId = newId('req');
  const started = performance.now();
  const reply = await runChat(
    {
      codec,
      // As the original call's project, so that its configs, settings and analytics apply.
      // The replaying key's own rate limits apply, as to any call it makes.
      principal: {
        orgId: caller.orgId,
        projectId: row.projectId,
        keyId: caller.keyId,
        role: caller.role,
        rateLimits: caller.rateLimits,
      },
      requestId,
      body,
      headers: {},
      signal: new AbortController().signal,
      dryRun: input.dry_run === true,
      replayOf: row.id,
    },
    {
      live: liveStateOf(svc),
      deadlines: pipelineDeadlines(svc.config.upstreamTimeoutMs, svc.config.streamIdleTimeoutMs),
      hooks: svc.hooks,
      onHookError: (err) => svc.logger.error({ err }, 'an afterResponse hook failed'),
    },
  );
  if (reply.kind !== 'json') throw new Error('a replay without stream answered with a stream');
  reply.done();
  const response = replyBody(reply);
  if (input.dry_run === true) {
    if (reply.status >= 400) throw errorOf(reply.status, response);
    return response;
  }
  const cost = Number(reply.headers['x-svc-cost-usd'] ?? '0');
  return {
    request_id: requestId,
    replay_of: row.id,
    response,
    model_used: reply.headers['x-svc-model-used'] ?? null,
    provider: reply.headers['x-svc-provider-used'] ?? null,
    status_code: reply.status,
    cost_usd: Number.isFinite(cost) ? cost : 0,
    latency_ms: Math.round((performance.now() - started) * 100) / 100,
  };
}

/** A dry run refused by routing (unknown slug, ...) is the caller's error, in the management shape. */
function errorOf(status: number, body: unknown): GatewayError {
  const err = (body as { error?: { message?: string; code?: string | null } } | null)?.error;
  const message = err?.message ?? 'the replay was refused';
  if (status === 404) return new GatewayError('routing_config_not_found', { message, param: 'routing_config' });
  return new GatewayError('invalid_parameter', { message, param: 'routing_config' });
}
