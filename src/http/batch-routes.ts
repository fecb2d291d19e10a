// The batch endpoints of both families: /alpha/v1/batches and /beta/v1/messages/batches. Each call
// writes one log row with its request_type (SPEC "Request log types"); a beta batch's rows name the
// model of its first request. The API-key gate (auth.ts) covers these paths like every proxy route.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UpstreamAnswer } from '../batches/passthrough.ts';
import type { Batches } from '../batches/service.ts';
import { fromUpstream, GatewayError } from '../errors/gateway-error.ts';
import type { JsonValue } from '../ir/types.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { type EndpointOutcome, endpointCall, recordEndpointCall } from '../pipeline/endpoint-record.ts';
import type { TraceLink } from '../ports/trace-links.ts';
import { formatCostHeader } from '../providers/catalog/cost.ts';
import { UpstreamTransportError } from '../providers/http.ts';
import type { BatchFamily, BatchRecord } from '../store/batches.ts';
import { isBetaPath, sendError } from './errors.ts';
import { type ProxyRequest, registerProxyGroup } from './route-table.ts';

interface Answer {
  status?: number;
  json?: JsonValue;
  /** JSONL, streamed. */
  lines?: AsyncIterable<string | Uint8Array>;
  /** The batch the call was about, for the row's model. */
  batch?: BatchRecord;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/** Where a beta batch's results are fetched: this gateway, as the caller reached it. */
const baseOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

export function batchRoutes(deps: PipelineDeps, batches: Batches) {
  return async (app: FastifyInstance): Promise<void> => {
    const serve = async (
      req: FastifyRequest,
      reply: FastifyReply,
      requestType: string,
      run: (traceLink: TraceLink) => Promise<Answer>,
    ): Promise<FastifyReply> => {
      // Both families share the request types; the metrics tell them apart by this.
      const callFamily = isBetaPath(req.url) ? 'beta' : 'alpha';
      const call = endpointCall(requestType, req.principal, req.svcId, req.headers, callFamily);
      // With tracing on, the call's own span: its context answers the call and is kept with a batch it creates.
      const span = deps.hooks.traceLinks?.openCall(requestType, header(req, 'traceparent'), header(req, 'tracestate'));
      if (span !== undefined) reply.header('traceparent', span.traceparent);
      const record = (o: EndpointOutcome) => {
        recordEndpointCall(deps, call, o);
        span?.end(
          {
            'http.request.method': req.method,
            'http.response.status_code': o.status,
            'switchyard.request_id': req.svcId,
            'switchyard.batch_id': o.trace === undefined ? undefined : (o.trace as { batch_id?: string }).batch_id,
          },
          o.status >= 400 ? String(o.status) : undefined,
        );
      };
      let answer: Answer;
      try {
        answer = await run(span?.traceparent ?? null);
      } catch (err) {
        // A pass-through call the vendor refused: its answer, as it sent it.
        if (err instanceof UpstreamAnswer) {
          record({ status: err.status, error: { upstream_status: err.status } });
          return reply.code(err.status).type('application/json; charset=utf-8').send(err.body);
        }
        // A vendor that could not be reached (pass-through): 502 / 504 like any upstream call.
        const e = err instanceof UpstreamTransportError ? fromUpstream(err.info) : err;
        if (!(e instanceof GatewayError)) throw e;
        record({ status: e.status, error: { code: e.code, message: e.message } });
        return sendError(reply, e);
      }
      const status = answer.status ?? 200;
      const model = answer.batch?.model ?? undefined;
      const trace = answer.batch ? { batch_id: answer.batch.id, status: answer.batch.status } : undefined;
      if (answer.lines !== undefined) {
        reply.raw.once('close', () =>
          record({ status: reply.raw.writableFinished ? status : 499, modelRequested: model, trace }),
        );
        return reply.code(status).type('application/x-jsonl').send(Readable.from(answer.lines));
      }
      // Recorded before the write, as the proxy routes do: the row is journaled first.
      record({ status, modelRequested: model, trace });
      // An ended batch tells what it cost, as a proxy call does.
      if (answer.batch?.costRecordedAt != null) reply.header('x-svc-cost-usd', formatCostHeader(answer.batch.costUsd));
      return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(answer.json));
    };

    const object = (req: FastifyRequest, b: BatchRecord): Answer => ({
      json: batches.objectOf(b, baseOf(req)),
      batch: b,
    });
    const family = (f: BatchFamily) => ({
      create: (req: FastifyRequest, reply: FastifyReply) =>
        serve(req, reply, 'batch_create', async (traceLink) => {
          const concurrency = batches.concurrencyOf(req.headers['x-svc-batch-concurrency']);
          const providerKey = header(req, 'x-svc-provider-key');
          const b =
            f === 'alpha'
              ? await batches.createAlpha(req.principal, req.body, concurrency, providerKey, traceLink)
              : await batches.createBeta(
                  req.principal,
                  req.body,
                  concurrency,
                  providerKey,
                  header(req, 'anthropic-version'),
                  traceLink,
                );
          return object(req, b);
        }),
      list: (req: FastifyRequest, reply: FastifyReply) =>
        serve(req, reply, 'batch_list', async () => {
          const page = await batches.list(req.principal, f, req.query as Record<string, unknown>);
          const json = f === 'alpha' ? { object: 'list', ...page } : page;
          return { json: json as unknown as JsonValue };
        }),
      get: (req: ProxyRequest, reply: FastifyReply) =>
        serve(req, reply, 'batch_retrieve', async () =>
          object(req, await batches.retrieve(req.principal, f, req.params.id)),
        ),
      cancel: (req: ProxyRequest, reply: FastifyReply) =>
        serve(req, reply, 'batch_cancel', async () =>
          object(req, await batches.cancel(req.principal, f, req.params.id)),
        ),
    });

    const alpha = family('alpha');
    const beta = family('beta');
    registerProxyGroup(app, 'batches', {
      alpha_create: alpha.create,
      alpha_list: alpha.list,
      alpha_retrieve: alpha.get,
      alpha_cancel: alpha.cancel,
      beta_create: beta.create,
      beta_list: beta.list,
      beta_retrieve: beta.get,
      beta_cancel: beta.cancel,
      beta_delete: (req, reply) =>
        serve(req, reply, 'batch_delete', async () => {
          const b = await batches.find(req.principal, 'beta', req.params.id);
          return { json: await batches.delete(b), batch: b };
        }),
      beta_results: (req, reply) =>
        serve(req, reply, 'batch_results', async () => {
          const b = await batches.retrieve(req.principal, 'beta', req.params.id);
          if (b.status !== 'ended')
            throw new GatewayError('invalid_request', { message: 'results are available once the batch has ended' });
          return { lines: await batches.results(b), batch: b };
        }),
    });
  };
}
