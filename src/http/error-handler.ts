// Maps every failure to the path's error shape. Client mistakes (bad JSON, wrong content type,
// failed validation, oversized body) are 4xx with a clear message; only genuine faults are 500,
// and those never echo internal details.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors/codes.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { describeValidationError, type ValidationPart } from '../manage/validation.ts';
import { megabytes, sendCode, sendError } from './errors.ts';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_content_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_content_length',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request_too_large',
  FST_ERR_BAD_URL: 'invalid_url',
};

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | GatewayError | Error, request, reply) => {
    if (error instanceof GatewayError) return sendError(reply, error);
    const fe = error as FastifyError;
    if (fe.validation) {
      const part = (fe.validationContext ?? 'body') as ValidationPart;
      const { message, param } = describeValidationError(part, fe.validation);
      return sendCode(reply, 'invalid_parameter', { message, param });
    }
    const known = fe.code ? FASTIFY_CODES[fe.code] : undefined;
    if (known === 'invalid_json') return sendCode(reply, known, { vars: { detail: fe.message } });
    if (known === 'request_too_large')
      return sendCode(reply, known, { vars: { limit: megabytes(bodyLimitOf(request)) } });
    if (known) return sendCode(reply, known);
    const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
    if (status >= 400 && status < 500)
      return sendCode(reply, 'invalid_request', { message: fe.message, status, wireCode: fe.code ?? null });
    request.log.error({ err: error, reqId: request.id }, 'unhandled error');
    return sendCode(reply, 'internal_error');
  });

  // The path the caller sent: under the root base URL `request.url` is the family path it was
  // rewritten to (root-alias.ts), which the caller never wrote.
  app.setNotFoundHandler((request, reply) =>
    sendCode(reply, 'unknown_route', { vars: { method: request.method, path: request.originalUrl.split('?')[0] } }),
  );
}

function bodyLimitOf(request: FastifyRequest): number {
  return request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit ?? 0;
}
