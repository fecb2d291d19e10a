// AWS JSON errors: body {message} and the exception name in `x-amzn-ErrorType`.
import { randomUUID } from 'node:crypto';
import type { FakeContext } from '../context.ts';

export type AwsErrorName =
  | 'ValidationException'
  | 'AccessDeniedException'
  | 'InvalidSignatureException'
  | 'UnrecognizedClientException'
  | 'MissingAuthenticationTokenException'
  | 'ResourceNotFoundException'
  | 'ThrottlingException'
  | 'InternalServerException'
  | 'UnknownOperationException';

const STATUS: Record<AwsErrorName, number> = {
  ValidationException: 400,
  AccessDeniedException: 403,
  InvalidSignatureException: 403,
  UnrecognizedClientException: 403,
  MissingAuthenticationTokenException: 403,
  ResourceNotFoundException: 404,
  ThrottlingException: 429,
  InternalServerException: 500,
  UnknownOperationException: 404,
};

export function sendAwsError(
  ctx: FakeContext,
  name: AwsErrorName,
  message: string,
  headers: Record<string, string> = {},
): void {
  ctx.sendJson(
    STATUS[name],
    { message },
    {
      'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': randomUUID(),
      ...headers,
    },
  );
}

export function sendAwsScriptedFailure(ctx: FakeContext, status: 429 | 500 | 400): void {
  if (status === 429)
    sendAwsError(
      ctx,
      'ThrottlingException',
      'Too many requests, please wait before trying again (scripted by fail-429).',
      {
        'retry-after': '1',
      },
    );
  else if (status === 500)
    sendAwsError(ctx, 'InternalServerException', 'The server encountered an internal error (scripted by fail-500).');
  else sendAwsError(ctx, 'ValidationException', 'Invalid request (scripted by fail-400).');
}
