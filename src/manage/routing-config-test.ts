// POST /manage/v1/routing-configs/{config_id}/test: the decision the proxy would make for a
// conversation (dry_run true, no upstream call) or the whole call run end to end (dry_run false).
import { Type } from '@sinclair/typebox';
import { decodeAlphaChat } from '../families/alpha/codec/decode-request.ts';
import { InvalidRequestError } from '../families/shared/invalid.ts';
import { readSvcHeaders } from '../families/shared/svc-headers.ts';
import type { ActiveConfig } from '../live/routing-configs.ts';
import { configDryRun } from '../routing/dry-run.ts';
import { compileStrategy, strategyName } from '../routing/normalize.ts';
import { requestFacts } from '../routing/planner.ts';
import { credentialOf, executeRouted, type RoutingDeps } from '../pipeline/executor.ts';
import { decisionTrace } from '../routing/trace.ts';
import { HttpError } from '../http/errors.ts';
import type { Services } from '../services.ts';
import { requireOrgKey } from './access.ts';
import { defineOperation, type Operation } from './operation.ts';
import { ConfigIdParams, liveConfig } from './routing-config-views.ts';

export function routingDepsOf(svc: Services): RoutingDeps {
  return {
    credentialById: (orgId, id) => svc.credentials.get(orgId, id),
    credentialFor: (orgId, vendor) => svc.credentials.resolve(orgId, vendor),
    health: svc.routing.health,
  };
}

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
    const orgId = requireOrgKey(principal);
    const rec = await liveConfig(svc, orgId, params.config_id);
    const cached = svc.routing.configs.get(orgId, rec.slug);
    const cfg: ActiveConfig =
      cached && cached.id === rec.id && cached.version === rec.version
        ? cached
        : {
            ...rec,
            strategy: strategyName(rec.strategy),
            compiled: compileStrategy(strategyName(rec.strategy), rec.config),
          };
    const { dry_run: dryRun, ...rest } = body;
    const chatBody: Record<string, unknown> = { ...rest, model: `@${rec.slug}`, stream: false };
    let decoded: ReturnType<typeof decodeAlphaChat>;
    try {
      decoded = decodeAlphaChat(chatBody);
    } catch (err) {
      if (err instanceof InvalidRequestError) throw new HttpError(400, err.message, { param: err.param ?? null });
      throw err;
    }
    const deps = routingDepsOf(svc);
    const facts = requestFacts({
      family: 'alpha',
      ir: decoded.ir,
      svc: decoded.svc,
      hdr: readSvcHeaders({}),
      headers: {},
    });
    const planned = configDryRun(cfg, facts, {
      health: svc.routing.health,
      hasCredential: (ref) => credentialOf(deps, orgId, ref) !== undefined,
    });
    if (dryRun !== false) return planned.envelope;
    const ac = new AbortController();
    const call = {
      family: 'alpha' as const,
      ir: decoded.ir,
      body: chatBody,
      requestId,
      created: Math.floor(Date.now() / 1000),
      includeUsage: false,
    };
    const r = await executeRouted(call, planned.decision, orgId, deps, ac.signal);
    const servedBy = r.step ? { model: r.step.ref.model, provider: r.step.ref.vendorAsSent } : null;
    const trace = decisionTrace(
      cfg.strategy,
      { slug: cfg.slug, version: cfg.version },
      planned.decision,
      r.attempts,
      r.outcome.ok ? servedBy : null,
    );
    if (!r.outcome.ok) return { dry_run: false, status: r.outcome.error.status, error: r.outcome.error, trace };
    const response = r.outcome.kind === 'json' ? r.outcome.body : null;
    return { dry_run: false, status: 200, response, trace };
  },
});

export const routingConfigTestOperations: Operation[] = [testConfig];
