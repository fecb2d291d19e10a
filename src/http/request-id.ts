// The gateway's request id on every response, under its own name and the two names the vendors'
// SDKs read it from: the openai SDK fills `_request_id` / `requestID` from `x-request-id`, the
// anthropic SDK `_request_id` / `requestID` from `request-id`. All three carry the same value, so
// an id a user copies from either SDK finds the gateway's log row. An upstream's own request id is
// never relayed under these names (header-value.ts drops them from reply header maps): the caller
// talks to the gateway, and its id is the one the logs know.
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADERS = ['x-svc-request-id', 'request-id', 'x-request-id'] as const;

export function registerRequestIds(app: FastifyInstance): void {
  // Set on the raw response so the headers also survive hijacked replies (MCP, streams).
  app.addHook('onRequest', (request, reply, done) => {
    const id = request.id;
    request.svcId = id;
    const raw = reply.raw;
    raw.setHeader('X-Svc-Request-Id', id);
    raw.setHeader('request-id', id);
    raw.setHeader('x-request-id', id);
    done();
  });
}
