// POST /beta/v1/messages/count_tokens: forwarded to Anthropic when the model is served natively;
// otherwise answered from the local tokenizer, and the response says so
// (`x-svc-token-count-source: local`).
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { decodeBetaMessages, stripBetaForPassthrough } from '../families/beta/codec/decode-request.ts';
import { InvalidRequestError } from '../families/shared/invalid.ts';
import { sendUpstream, UpstreamTransportError } from '../providers/http.ts';
import { chatAdapterFor } from '../providers/registry.ts';
import { estimateRequestTokens } from '../tokens/estimate.ts';
import type { Principal, ProxyDeps } from './deps.ts';
import { errorBody, fromUpstream } from './errors.ts';
import { readSvcHeaders } from '../families/shared/svc-headers.ts';
import { GatewayFailure, resolveDirectTarget } from './resolve-target.ts';

export interface CountContext {
  principal: Principal;
  requestId: string;
  body: unknown;
  headers: IncomingHttpHeaders;
  signal: AbortSignal;
}

export async function handleCountTokens(ctx: CountContext, reply: FastifyReply, deps: ProxyDeps): Promise<void> {
  try {
    const raw = ctx.body;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new InvalidRequestError('request body must be a JSON object');
    }
    const body = raw as Record<string, unknown>;
    // count_tokens bodies carry no max_tokens; the messages decoder validates everything else.
    const { ir } = decodeBetaMessages({ ...body, max_tokens: 1 });
    const hdr = readSvcHeaders(ctx.headers);
    const target = resolveDirectTarget(ir.model, ctx.principal, hdr, deps);
    const adapter = chatAdapterFor(target.vendor, target.model);
    if (target.vendor === 'anthropic' && adapter.wire === 'anthropic') {
      const headers: Record<string, string> = { 'anthropic-version': hdr.altVersion ?? '2023-06-01' };
      if (hdr.altBeta) headers['anthropic-beta'] = hdr.altBeta;
      const t = { vendor: target.vendor, model: target.model, credential: target.credential, headers };
      const { stream: _s, max_tokens: _m, ...rest } = body;
      const spec = await adapter.rawChatRequest(stripBetaForPassthrough(rest, target.model), t, false);
      spec.url = spec.url.replace(/\/v1\/messages$/, '/v1/messages/count_tokens');
      const res = await sendUpstream(spec, { signal: ctx.signal });
      const text = await res.body.text();
      if (res.status < 200 || res.status >= 300) {
        const e = fromUpstream(adapter.decodeError(res.status, text, res.headers));
        reply.code(e.status).send(errorBody('beta', e));
        return;
      }
      reply.header('x-svc-token-count-source', 'upstream').header('x-svc-provider', target.vendorAsSent);
      reply.type('application/json').send(text);
      return;
    }
    reply.header('x-svc-token-count-source', 'local').header('x-svc-provider', target.vendorAsSent);
    reply.send({ input_tokens: estimateRequestTokens(ir) });
  } catch (err) {
    if (err instanceof InvalidRequestError) {
      reply.code(400).send(errorBody('beta', { status: 400, message: err.message }));
    } else if (err instanceof GatewayFailure) {
      reply.code(err.status).send(errorBody('beta', err));
    } else if (err instanceof UpstreamTransportError) {
      const e = fromUpstream(err.info);
      reply.code(e.status).send(errorBody('beta', e));
    } else throw err;
  }
}
