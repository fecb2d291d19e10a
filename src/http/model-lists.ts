// GET /alpha/v1/models and /beta/v1/models: empty by default (the API contract), and for a key of a
// project with `list_models: true` the models it may call, in each family's own list shape, so SDK
// `models.list()` calls and model pickers work. Read from memory; no upstream is asked.
import { GatewayError } from '../errors/gateway-error.ts';
import { callableModels, catalogDate } from '../manage/models-view.ts';
import type { LiveState } from '../pipeline/types.ts';
import type { ProxyHandler, ProxyRequest } from './route-table.ts';

function listed(live: LiveState, req: ProxyRequest) {
  return callableModels(live, req.principal).map((e) => ({
    id: `${e.vendor}/${e.id}`,
    vendor: e.vendor,
    created: catalogDate(e.vendor),
  }));
}

function listing(live: LiveState, req: ProxyRequest): boolean {
  const projectId = req.principal.projectId;
  return projectId !== null && live.listsModels(projectId);
}

export function alphaModelList(live: LiveState): ProxyHandler {
  return async (req) => ({
    object: 'list',
    data: listed(live, req).map((m) => ({
      id: m.id,
      object: 'model',
      created: Math.floor(m.created.getTime() / 1000),
      owned_by: m.vendor,
    })),
  });
}

const BETA_DEFAULT_LIMIT = 20;
const BETA_MAX_LIMIT = 1000;

function betaLimit(v: unknown): number {
  if (v === undefined) return BETA_DEFAULT_LIMIT;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= 1 && n <= BETA_MAX_LIMIT))
    throw new GatewayError('invalid_parameter', {
      message: `limit must be an integer from 1 to ${BETA_MAX_LIMIT}`,
      param: 'limit',
    });
  return n;
}

/** The beta family pages by id: `after_id` / `before_id` and `limit`, as its SDK iterates. */
export function betaModelList(live: LiveState): ProxyHandler {
  return async (req) => {
    // The contract's answer, byte for byte, for every key whose project does not list models.
    if (!listing(live, req)) return { data: [], has_more: false };
    const q = (req.query ?? {}) as Record<string, unknown>;
    const limit = betaLimit(q.limit);
    const all = listed(live, req);
    let start = 0;
    let end = all.length;
    if (typeof q.after_id === 'string') start = all.findIndex((m) => m.id === q.after_id) + 1;
    if (typeof q.before_id === 'string') {
      const at = all.findIndex((m) => m.id === q.before_id);
      end = at < 0 ? all.length : at;
      start = Math.max(start, end - limit);
    }
    const page = all.slice(start, Math.min(end, start + limit));
    return {
      data: page.map((m) => ({
        id: m.id,
        type: 'model',
        display_name: m.id,
        created_at: m.created.toISOString(),
      })),
      has_more: typeof q.before_id === 'string' ? start > 0 : start + page.length < end,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    };
  };
}
