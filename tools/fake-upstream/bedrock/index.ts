// Bedrock Runtime emulation mounted at /bedrock (SDK `endpoint: http://host:port/bedrock`).
import type { VendorHandler } from '../context.ts';
import { handleConverse } from './converse.ts';
import { sendAwsError } from './errors.ts';
import { handleInvoke } from './invoke.ts';
import { checkAwsAuth } from './sigv4.ts';

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

export const handleBedrock: VendorHandler = async (ctx) => {
  const auth = await checkAwsAuth(ctx);
  if (!auth.ok) return sendAwsError(ctx, auth.name, auth.message);
  const m = ROUTE.exec(ctx.path);
  if (!m || ctx.method !== 'POST')
    return sendAwsError(ctx, 'UnknownOperationException', `No operation matches ${ctx.method} ${ctx.path}`);
  // Model ids arrive URL-encoded as one segment (`:` as %3A, ARNs with %2F).
  let modelId: string;
  try {
    modelId = decodeURIComponent(m[1]);
  } catch {
    return sendAwsError(ctx, 'ValidationException', 'The provided model identifier is invalid.');
  }
  switch (m[2]) {
    case 'converse':
      return handleConverse(ctx, modelId, false);
    case 'converse-stream':
      return handleConverse(ctx, modelId, true);
    case 'invoke':
      return handleInvoke(ctx, modelId, false);
    default:
      return handleInvoke(ctx, modelId, true);
  }
};
