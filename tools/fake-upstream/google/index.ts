// Gemini (Generative Language API) emulation mounted at /google (js-genai `httpOptions.baseUrl`).
import type { VendorHandler } from '../context.ts';
import { isRefusedKey, presentKey } from '../script.ts';
import { sendGoogleError } from './errors.ts';
import { countTokensHandler, embed, generate } from './handlers.ts';
import { getModel, listModels } from './models.ts';

const METHOD = /^\/(v1beta|v1|v1alpha)\/models\/([^/]+):([A-Za-z]+)$/;
const MODEL = /^\/(v1beta|v1|v1alpha)\/models(?:\/([^/:]+))?$/;

export const handleGoogle: VendorHandler = async (ctx) => {
  const key = presentKey(ctx.header('x-goog-api-key')) ?? presentKey(ctx.query.get('key'));
  if (key === undefined || isRefusedKey(key))
    return sendGoogleError(
      ctx,
      'UNAUTHENTICATED',
      key ? 'API key not valid. Please pass a valid API key.' : 'Missing API key.',
      [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
    );
  const m = METHOD.exec(ctx.path);
  if (m && ctx.method === 'POST') {
    const model = decodeURIComponent(m[2]);
    switch (m[3]) {
      case 'generateContent':
        return generate(ctx, model, false);
      case 'streamGenerateContent':
        return generate(ctx, model, true);
      case 'countTokens':
        return countTokensHandler(ctx);
      case 'embedContent':
        return embed(ctx, model, false);
      case 'batchEmbedContents':
        return embed(ctx, model, true);
    }
  }
  const l = MODEL.exec(ctx.path);
  if (l && ctx.method === 'GET') return l[2] ? getModel(ctx, decodeURIComponent(l[2])) : listModels(ctx);
  sendGoogleError(ctx, 'NOT_FOUND', `The requested URL ${ctx.prefix}${ctx.path} was not found on this server.`);
};
