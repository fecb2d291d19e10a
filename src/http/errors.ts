// Writes a GatewayError in the shape of the path that was called: `/beta/*` answers like the
// messages-style API, everything else (alpha and the management API) like the chat-completions style.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors/codes.ts';
import { GatewayError, type GatewayErrorOptions } from '../errors/gateway-error.ts';

export function isBetaPath(url: string): boolean {
  return url === '/beta' || url.startsWith('/beta/') || url.startsWith('/beta?');
}

export function errorBodyFor(url: string, e: GatewayError): Record<string, unknown> {
  if (isBetaPath(url)) return { type: 'error', error: { type: e.betaType, message: e.message } };
  return { error: { message: e.message, type: e.alphaType, param: e.param, code: e.wireCode } };
}

export function sendError(reply: FastifyReply, e: GatewayError): FastifyReply {
  const request: FastifyRequest = reply.request;
  if (e.headers) reply.headers(e.headers);
  return reply.code(e.status).type('application/json; charset=utf-8').send(errorBodyFor(request.url, e));
}

export function sendCode(reply: FastifyReply, code: ErrorCode, opts?: GatewayErrorOptions): FastifyReply {
  return sendError(reply, new GatewayError(code, opts));
}

/** Bytes as the MB figure a user configures (SWITCHYARD_MAX_BODY_MB counts 1024 * 1024 bytes). */
export function megabytes(bytes: number): string {
  return String(Math.round((bytes / (1024 * 1024)) * 100) / 100);
}
