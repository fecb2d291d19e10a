// The gateway's request id on every response, under its own name and the two names the vendors'
// SDKs read it from: the openai SDK fills `_request_id` / `requestID` from `x-request-id`, the
// anthropic SDK `_request_id` / `requestID` from `request-id`. All three carry the same value, so
// an id a user copies from either SDK finds the gateway's log row. An upstream's own request id is
// never relayed under these names (header-value.ts drops them from reply header maps): the caller
// talks to the gateway, and its id is the one the logs know.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADERS = ['x-svc-request-id', 'request-id', 'x-request-id'] as const;

export type RequestIdHeaders = Record<(typeof REQUEST_ID_HEADERS)[number], string>;

export function registerRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const id = request.id;
    request.svcId = id;
    // Into fastify's header map, written with the status in one writeHead. Headers set on the raw
    // response instead make Node merge two header sets on every reply (its slow path).
    reply.header('x-svc-request-id', id).header('request-id', id).header('x-request-id', id);
    done();
  });
}

/**
 * The ids for a reply that writes its own head after `reply.hijack()` (streams, exports): fastify
 * does not write its header map for those, so they add these to their writeHead.
 */
export function requestIdHeaders(id: string): RequestIdHeaders {
  return { 'x-svc-request-id': id, 'request-id': id, 'x-request-id': id };
}

/** For a hijacked reply whose head a library writes (the MCP transport): the ids go on the raw response. */
export function setRawRequestIds(raw: ServerResponse, id: string): void {
  for (const name of REQUEST_ID_HEADERS) raw.setHeader(name, id);
}
