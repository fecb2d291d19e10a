// POST /beta/v1/messages/count_tokens through the pipeline: forwarded to Anthropic when the routed
// model is served there natively; otherwise answered from the local tokenizer, and the response says
// so (`x-svc-token-count-source: local`). An `@slug` counts for the config's first eligible candidate.
import { fromUpstream, GatewayError } from '../errors/gateway-error.ts';
import { decodeBetaMessages } from '../families/beta/codec/decode-request.ts';
import { stripBetaForPassthrough } from '../families/beta/codec/passthrough.ts';
import { sendUpstream, UpstreamTransportError } from '../providers/http.ts';
import { chatAdapterFor } from '../providers/registry.ts';
import { requestFacts } from '../routing/planner.ts';
import { estimateRequestTokens } from '../tokens/estimate.ts';
import { isRecord } from '../util/json.ts';
import type { RoutedTarget } from './call.ts';
import type { PipelineDeps } from './deps.ts';
import { runBeforeRoute } from './hooks.ts';
import { endCall, newCall, withCallHeaders } from './lifecycle.ts';
import { routeCall, targetOf } from './route.ts';
import type { PipelineReply, ProxyInput } from './types.ts';

export async function runCountTokens(input: ProxyInput, deps: PipelineDeps): Promise<PipelineReply> {
  const call = newCall(input, 'count_tokens');
  // Free, so never logged or priced; it still counts against request limits (a beforeRoute hook).
  const done = () => endCall(deps, call);
  const fail = (e: GatewayError): PipelineReply => ({
    kind: 'json',
    status: e.status,
    headers: withCallHeaders(call, { ...e.headers }),
    body: input.codec.errorBody(e),
    done,
  });
  try {
    if (!isRecord(input.body))
      throw new GatewayError('invalid_request', { message: 'request body must be a JSON object' });
    const body = input.body;
    // count_tokens bodies carry no max_tokens; the messages decoder validates everything else.
    const { ir, svc } = decodeBetaMessages({ ...body, max_tokens: 1 });
    call.modelRequested = ir.model;
    call.svc = svc;
    if (deps.hooks.beforeRoute.length > 0) {
      const pending = runBeforeRoute(deps.hooks, call);
      if (pending) await pending;
    }
    const plan = routeCall(
      {
        model: ir.model,
        principal: input.principal,
        hdr: call.hdr,
        kind: 'chat',
        facts: () => requestFacts({ family: 'beta', ir, svc, hdr: call.hdr, headers: input.headers }),
      },
      deps.live,
    );
    let target: RoutedTarget | undefined;
    if (plan.kind === 'direct') target = plan.target;
    else {
      for (const step of plan.decision.attempts) {
        target = targetOf(deps.live, input.principal.orgId, step.ref);
        if (target) break;
      }
      if (!target) throw new GatewayError('no_eligible_candidate');
    }
    const adapter = chatAdapterFor(target.vendor, target.model);
    if (target.vendor === 'anthropic' && adapter.wire === 'anthropic') {
      const t = {
        vendor: target.vendor,
        model: target.model,
        credential: target.credential,
        headers: input.codec.upstreamHeaders(call.hdr),
      };
      const { stream: _s, max_tokens: _m, ...rest } = body;
      const spec = await adapter.rawChatRequest(stripBetaForPassthrough(rest, target.model), t, false);
      spec.url = spec.url.replace(/\/v1\/messages$/, '/v1/messages/count_tokens');
      const res = await sendUpstream(spec, { signal: input.signal, deadlines: deps.deadlines.answer });
      const text = await res.body.text();
      if (res.status < 200 || res.status >= 300)
        return fail(fromUpstream(adapter.decodeError(res.status, text, res.headers)));
      const headers = { 'x-svc-token-count-source': 'upstream', 'x-svc-provider': target.vendorAsSent };
      return { kind: 'json', status: 200, headers: withCallHeaders(call, headers), body: text, done };
    }
    const headers = { 'x-svc-token-count-source': 'local', 'x-svc-provider': target.vendorAsSent };
    const counted = { input_tokens: estimateRequestTokens(ir) };
    return { kind: 'json', status: 200, headers: withCallHeaders(call, headers), body: counted, done };
  } catch (err) {
    if (err instanceof GatewayError) return fail(err);
    if (err instanceof UpstreamTransportError) return fail(fromUpstream(err.info));
    done();
    throw err;
  }
}
