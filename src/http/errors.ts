// One place that knows both error body shapes. The shape follows the family of the URL that was
// called: `/beta/*` answers like the messages-style API, everything else like the chat-completions
// style (which the management API shares, DESIGN.md section 7).
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface ErrorInfo {
  message: string;
  type?: string;
  code?: string | null;
  param?: string | null;
}

export class HttpError extends Error {
  readonly status: number;
  readonly type: string | undefined;
  readonly code: string | null;
  readonly param: string | null;

  constructor(
    status: number,
    message: string,
    opts: { type?: string; code?: string | null; param?: string | null } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.type = opts.type;
    this.code = opts.code ?? null;
    this.param = opts.param ?? null;
  }
}

/** Default error type per status, using the beta family's vocabulary (SPEC "Errors / Family beta"). */
export function defaultErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402 || status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export function isBetaPath(url: string): boolean {
  return url === '/beta' || url.startsWith('/beta/') || url.startsWith('/beta?');
}

export function errorBody(url: string, status: number, info: ErrorInfo): Record<string, unknown> {
  const type = info.type ?? defaultErrorType(status);
  if (isBetaPath(url)) return { type: 'error', error: { type, message: info.message } };
  return { error: { message: info.message, type, param: info.param ?? null, code: info.code ?? null } };
}

export function sendError(reply: FastifyReply, status: number, info: ErrorInfo): FastifyReply {
  const request: FastifyRequest = reply.request;
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(request.url, status, info));
}
