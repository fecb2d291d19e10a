// Anthropic API emulation mounted at /anthropic (SDK base URL `http://host:port/anthropic`).
import type { VendorHandler } from '../context.ts';
import { bearerKey, isRefusedKey, presentKey } from '../script.ts';
import { handleBatches } from './batches.ts';
import { sendError } from './errors.ts';
import { handleCountTokens, handleMessages } from './messages.ts';
import { handleModels } from './models.ts';

/** A key sent as `x-api-key` or (current SDKs) `Authorization: Bearer`; any but a scripted refused one. */
function authError(apiKey: string | undefined, authorization: string | undefined): string | undefined {
  const header = presentKey(apiKey);
  if (header !== undefined) return isRefusedKey(header) ? 'invalid x-api-key' : undefined;
  if (presentKey(authorization) !== undefined) {
    const token = bearerKey(authorization);
    return token === undefined || isRefusedKey(token) ? 'invalid bearer token' : undefined;
  }
  return 'x-api-key header is required';
}

export const handleAnthropic: VendorHandler = async (ctx) => {
  const auth = authError(ctx.header('x-api-key'), ctx.header('authorization'));
  if (auth) return sendError(ctx, 'authentication_error', auth);
  // The batch results URL is fetched as given, with the same headers, so it is no exception here.
  if (!ctx.header('anthropic-version'))
    return sendError(ctx, 'invalid_request_error', 'anthropic-version: header is required');
  const p = ctx.path;
  if (p === '/v1/messages' && ctx.method === 'POST') return handleMessages(ctx);
  if (p === '/v1/messages/count_tokens' && ctx.method === 'POST') return handleCountTokens(ctx);
  if (p === '/v1/messages/batches' || p.startsWith('/v1/messages/batches/'))
    return handleBatches(ctx, p.slice('/v1/messages/batches'.length));
  if (p === '/v1/models' || p.startsWith('/v1/models/')) return handleModels(ctx, p.slice('/v1/models'.length));
  sendError(ctx, 'not_found_error', `Not Found: ${ctx.method} ${p}`);
};
