// POST /manage/v1/routing-configs/{config_id}/test: the decision the proxy would make for a
// conversation (dry_run true, no upstream call) or the whole call run end to end (dry_run false).
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import { alphaCodec } from '../families/alpha/codec.ts';
import { readSvcHeaders } from '../families/shared/svc-headers.ts';
import { executeChat } from '../pipeline/executor.ts';
import { routeCall } from '../pipeline/route.ts';
import type { LiveState } from '../pipeline/types.ts';
import { compileStrategy, strategyName } from '../routing/normalize.ts';
import { requestFacts } from '../routing/planner.ts';
import type { ActiveConfig } from '../routing/types.ts';
import { liveStateOf } from './live-state.ts';
import { defineOperation, type Operation } from './operation.ts';
import { ConfigIdParams, reachableConfig } from './routing-config-views.ts';

const Message = Type.Object(
  {
    role: Type.String(),
    content: Type.Union([Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))]),
  },
  { additionalProperties: true },
);

const testConfig = defineOperation({
  name: 'test_routing_config',
  method: 'POST',
  role: 'developer',
  path: '/manage/v1/routing-configs/{config_id}/test',
  tag: 'routing-configs',
  summary: 'Test a routing config: dry_run true returns the decision only; false runs the call end to end',
  errors: [400, 404],
  input: {
    params: ConfigIdParams,
    body: Type.Object(
      {
        messages: Type.Array(Message, { minItems: 1 }),
        dry_run: Type.Optional(Type.Boolean({ default: true })),
        max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
        temperature: Type.Optional(Type.Number()),
        tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
        response_format: Type.Optional(Type.Object({}, { additionalProperties: true })),
      },
      { additionalProperties: true },
    ),
  },
  output: Type.Object({}, { additionalProperties: true }),
  async handler({ svc, principal, params, body, requestId }) {
    const orgId = principal.orgId;
    const rec = await reachableConfig(svc, principal, params.config_id);
    const { dry_run: dryRun, ...rest } = body;
    const chatBody: Record<string, unknown> = { ...rest, model: `@${rec.slug}`, stream: false };
    // The config as stored now, even if the live mirror has not seen this version yet.
    const cached = svc.routing.configs.get(orgId, rec.slug);
    const cfg: ActiveConfig =
      cached && cached.id === rec.id && cached.version === rec.version
        ? cached
        : {
            ...rec,
            strategy: strategyName(rec.strategy),
            compiled: compileStrategy(strategyName(rec.strategy), rec.config),
          };
    const base = liveStateOf(svc);
    const live: LiveState = {
      ...base,
      config: (o, slug) => (o === orgId && slug === rec.slug ? cfg : base.config(o, slug)),
    };
    const decoded = alphaCodec.decode(chatBody);
    const hdr = readSvcHeaders({});
    const plan = routeCall(
      {
        model: decoded.ir.model,
        principal,
        hdr,
        kind: 'chat',
        facts: () => requestFacts({ family: 'alpha', ir: decoded.ir, svc: decoded.svc, hdr, headers: {} }),
      },
      live,
    );
    if (plan.kind !== 'config') throw new GatewayError('routing_config_not_found', { vars: { slug: rec.slug } });
    if (dryRun !== false) return plan.envelope;
    const call = {
      codec: alphaCodec,
      ir: decoded.ir,
      body: chatBody,
      requestId,
      created: Math.floor(Date.now() / 1000),
      includeUsage: false,
    };
    const served = await executeChat(call, plan, orgId, live, new AbortController().signal);
    const trace = served.trace;
    if (!served.outcome.ok)
      return { dry_run: false, status: served.outcome.error.status, error: served.outcome.error, trace };
    const response = served.outcome.kind === 'json' ? served.outcome.body : null;
    return { dry_run: false, status: 200, response, trace };
  },
});

export const routingConfigTestOperations: Operation[] = [testConfig];
