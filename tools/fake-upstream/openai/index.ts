// OpenAI-wire vendors (openai, together, fireworks): Bearer auth (any key but a scripted refused one),
// then the shared path table.
import type { VendorHandler } from '../context.ts';
import { bearerKey, isRefusedKey } from '../script.ts';
import type { OaiEnv } from './env.ts';
import { sendError } from './errors.ts';
import { dispatchOpenAI, isPublicPath } from './router.ts';

function maskKey(key: string): string {
  return key.length <= 8 ? key : `${key.slice(0, 3)}${'*'.repeat(Math.min(20, key.length - 7))}${key.slice(-4)}`;
}

export function openaiHandler(variant: 'openai' | 'together' | 'fireworks'): VendorHandler {
  return async (ctx) => {
    const env: OaiEnv = { vendor: variant, base: ctx.prefix };
    if (!isPublicPath(ctx.path)) {
      const key = bearerKey(ctx.header('authorization'));
      if (key === undefined || isRefusedKey(key)) {
        const message =
          key === undefined
            ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
            : `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
        return sendError(ctx, {
          status: 401,
          message,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        });
      }
    }
    await dispatchOpenAI(ctx, env, ctx.path);
  };
}
