// Azure OpenAI: classic `/openai/deployments/{d}/...?api-version=` and `/openai/...?api-version=` URLs,
// and the v1 form `/openai/v1/...`; the deployment name stands in for the model.
import type { FakeContext, VendorHandler } from '../context.ts';
import type { OaiEnv } from '../openai/env.ts';
import { dispatchOpenAI } from '../openai/router.ts';
import { bearerKey, isRefusedKey, presentKey } from '../script.ts';

/** Azure's own error body (`code` is a string, no `type`), as its gateway answers before the model runs. */
function azureError(ctx: FakeContext, status: number, code: string, message: string): void {
  ctx.sendJson(status, { error: { code, message } });
}

interface AzureTarget {
  env: OaiEnv;
  path: string;
  needsVersion: boolean;
}

export function resolveAzurePath(prefix: string, path: string): AzureTarget | undefined {
  if (path.startsWith('/openai/v1/'))
    return {
      env: { vendor: 'azure', base: `${prefix}/openai/v1` },
      path: path.slice('/openai/v1'.length),
      needsVersion: false,
    };
  const dep = /^\/openai\/deployments\/([^/]+)(\/.+)$/.exec(path);
  if (dep) {
    const model = decodeURIComponent(dep[1]);
    return {
      env: { vendor: 'azure', model, base: `${prefix}/openai/deployments/${dep[1]}` },
      path: dep[2],
      needsVersion: true,
    };
  }
  if (path.startsWith('/openai/'))
    return {
      env: { vendor: 'azure', base: `${prefix}/openai` },
      path: path.slice('/openai'.length),
      needsVersion: true,
    };
  return undefined;
}

/** Azure's gateway tells a missing key from a wrong one; undefined when the key is accepted. */
function authRefusal(ctx: FakeContext): string | undefined {
  // Entra ID tokens arrive as Bearer; the fake treats them as keys
  const key = presentKey(ctx.header('api-key')) ?? bearerKey(ctx.header('authorization'));
  if (key === undefined)
    return 'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.';
  if (isRefusedKey(key))
    return 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';
  return undefined;
}

export const handleAzure: VendorHandler = async (ctx) => {
  const target = resolveAzurePath(ctx.prefix, ctx.path);
  if (!target) return azureError(ctx, 404, '404', 'Resource not found');
  const refusal = authRefusal(ctx);
  if (refusal) return azureError(ctx, 401, '401', refusal);
  if (target.needsVersion && !ctx.query.get('api-version')) return azureError(ctx, 404, '404', 'Resource not found');
  await dispatchOpenAI(ctx, target.env, target.path);
};
