// Failures that happen before a route runs: a URL fastify cannot decode, a path parameter over
// its length limit, and requests Node's HTTP parser rejects (oversized headers, a bad
// content-length or transfer-encoding). Each answers in the documented error shape of the path
// that was called, with its status kept, instead of fastify's or Node's own bodies.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors/codes.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { newId } from '../util/ids.ts';
import { errorBodyFor } from './errors.ts';
import { REQUEST_ID_HEADERS } from './request-id.ts';

const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_BAD_URL: 'invalid_url',
  FST_ERR_MAX_PARAM_LENGTH: 'path_too_long',
};

/** fastify's `frameworkErrors` option. */
export function onFrameworkError(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const code = FRAMEWORK_CODES[error.code] ?? 'invalid_request';
  const e = new GatewayError(code, code === 'invalid_request' ? { message: error.message } : {});
  // Routing failed before the onRequest hooks that set the request id headers ran.
  for (const name of REQUEST_ID_HEADERS) reply.header(name, req.id);
  reply.code(e.status).type('application/json; charset=utf-8').send(errorBodyFor(req.url, e));
}

/** The path of a request Node could not parse, read from the start of its raw bytes. */
function pathOf(raw: unknown): string {
  if (!Buffer.isBuffer(raw)) return '/';
  const line = raw.subarray(0, 512).toString('latin1').split('\r\n', 1)[0];
  return line.split(' ')[1] ?? '/';
}

/** fastify's `clientErrorHandler` option: Node's HTTP parser refused the request. */
export function onClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'headers_too_large'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request_timeout'
        : 'malformed_request';
  const e = new GatewayError(code);
  const body = JSON.stringify(errorBodyFor(pathOf(err.rawPacket), e));
  // No request was made of these bytes, so the id is new; it still lets a report name the answer.
  const id = newId('req');
  const ids = REQUEST_ID_HEADERS.map((name) => `${name}: ${id}\r\n`).join('');
  // When a response already started on this connection (the parser failed on a body after the
  // route answered), a second status line would corrupt it: close instead, as Node does.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    socket.write(
      `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json; charset=utf-8\r\n${ids}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
