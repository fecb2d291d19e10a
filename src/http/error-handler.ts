// Maps every failure to the family's error shape. Client mistakes (bad JSON, wrong content type,
// failed validation, oversized body) are 4xx with a clear message; only genuine faults are 500,
// and those never echo internal details.
import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError, sendError } from './errors.ts';
import { describeValidationError, type ValidationPart } from './validation.ts';

const CLIENT_ERROR_CODES: Record<string, { status: number; code: string; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 400,
    code: 'unsupported_content_type',
    message: 'Unsupported Content-Type: send the body as application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_content_length' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'empty_body', message: 'Request body is empty' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'request_too_large', message: 'Request body is too large' },
  FST_ERR_BAD_URL: { status: 400, code: 'invalid_url' },
};

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError | Error, request, reply) => {
    if (error instanceof HttpError) {
      return sendError(reply, error.status, {
        message: error.message,
        type: error.type,
        code: error.code,
        param: error.param,
      });
    }
    const fe = error as FastifyError;
    if (fe.validation) {
      const part = (fe.validationContext ?? 'body') as ValidationPart;
      const { message, param } = describeValidationError(part, fe.validation);
      return sendError(reply, 400, { message, param, code: 'invalid_parameter' });
    }
    const known = fe.code ? CLIENT_ERROR_CODES[fe.code] : undefined;
    if (known) return sendError(reply, known.status, { message: known.message ?? fe.message, code: known.code });
    const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
    if (status >= 400 && status < 500) return sendError(reply, status, { message: fe.message, code: fe.code ?? null });
    request.log.error({ err: error, reqId: request.id }, 'unhandled error');
    return sendError(reply, 500, { message: 'Internal server error', code: 'internal_error' });
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, {
      message: `Unknown route: ${request.method} ${request.url.split('?')[0]}`,
      code: 'unknown_route',
    }),
  );
}
