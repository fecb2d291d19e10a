// One base URL for both SDKs (DESIGN.md section 7): `/v1/...` is served as the family path it
// stands for, so the openai SDK works with `baseURL: <host>/v1` and the anthropic SDK with the bare
// host. `/v1/messages...` is family beta; `/v1/models` answers in the caller's family, beta when an
// `anthropic-version` header says the caller is the anthropic SDK; everything else is family alpha.
// It runs before routing (fastify's rewriteUrl), so auth, error shapes and logs see the family path.
import type { IncomingMessage } from 'node:http';

export function rootAlias(req: Pick<IncomingMessage, 'url' | 'headers'>): string {
  const url = req.url ?? '/';
  // The common call is already a family path: one comparison and out.
  if (url.charCodeAt(1) !== 118 || !url.startsWith('/v1/')) return url;
  if (url.startsWith('/v1/messages')) return `/beta${url}`;
  if (/^\/v1\/models(?:[/?]|$)/.test(url) && req.headers['anthropic-version'] !== undefined) return `/beta${url}`;
  return `/alpha${url}`;
}

/** GET /: where the APIs are, for whoever finds the gateway's address. */
export function rootDocument(origin: string, hasUi: boolean): Record<string, unknown> {
  return {
    name: 'switchyard',
    base_urls: {
      openai_sdk: `${origin}/v1`,
      anthropic_sdk: origin,
      alpha: `${origin}/alpha/v1`,
      beta: `${origin}/beta`,
    },
    docs: {
      openapi: `${origin}/openapi.yaml`,
      mcp: `${origin}/mcp`,
      health: `${origin}/healthz`,
      ...(hasUi ? { dashboard: `${origin}/ui/` } : {}),
    },
  };
}
