// /batches routes: create from an uploaded JSONL file, get, list, cancel.
import { BATCH_ENDPOINTS, normaliseEndpoint } from './batch-exec.ts';
import { advanceBatch, batchStore, type StoredBatch } from './batch-lifecycle.ts';
import { commonHeaders, type Route } from './env.ts';
import { invalid, notFound, sendError } from './errors.ts';
import { getFileData } from './files.ts';
import { cursorPage } from './pagination.ts';
import { isRecord, type Json, newId, nowSec, str } from './util.ts';

const missing = (id: string) => notFound(`No batch found with id '${id}'.`, 'batch_id');

export const handleCreateBatch: Route = async (ctx, env) => {
  const body = await ctx.json();
  if (!isRecord(body)) return sendError(ctx, invalid('We could not parse the JSON body of your request.'));
  const fileId = str(body.input_file_id);
  if (fileId === undefined)
    return sendError(
      ctx,
      invalid("Missing required parameter: 'input_file_id'.", 'input_file_id', 'missing_required_parameter'),
    );
  const rawEndpoint = str(body.endpoint);
  if (rawEndpoint === undefined)
    return sendError(ctx, invalid("Missing required parameter: 'endpoint'.", 'endpoint', 'missing_required_parameter'));
  const endpoint = normaliseEndpoint(rawEndpoint);
  if (!BATCH_ENDPOINTS.includes(endpoint))
    return sendError(
      ctx,
      invalid(
        `Invalid value: '${rawEndpoint}'. Supported values are: ${BATCH_ENDPOINTS.map((e) => `'${e}'`).join(', ')}.`,
        'endpoint',
        'invalid_value',
      ),
    );
  if (body.completion_window !== '24h')
    return sendError(
      ctx,
      invalid(
        `Invalid value: '${String(body.completion_window)}'. Supported values are: '24h'.`,
        'completion_window',
        'invalid_value',
      ),
    );
  const file = getFileData(ctx.state, env.vendor, fileId);
  if (!file) return sendError(ctx, notFound(`No such File object: ${fileId}`, 'input_file_id'));
  if (file.meta.purpose !== 'batch')
    return sendError(
      ctx,
      invalid(`Invalid 'input_file_id': file ${fileId} does not have purpose 'batch'.`, 'input_file_id'),
    );
  const created = nowSec();
  const obj: Json = {
    id: newId('batch_'),
    object: 'batch',
    endpoint: rawEndpoint,
    errors: null,
    input_file_id: fileId,
    completion_window: '24h',
    status: 'validating',
    output_file_id: null,
    error_file_id: null,
    created_at: created,
    in_progress_at: null,
    expires_at: created + 86_400,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total: 0, completed: 0, failed: 0 },
    metadata: isRecord(body.metadata) ? body.metadata : null,
  };
  const stored: StoredBatch = { obj, endpoint, phaseMs: Date.now(), lines: [], results: [], errors: [] };
  batchStore(ctx.state, env.vendor).set(String(obj.id), stored);
  ctx.sendJson(200, obj, commonHeaders());
};

export const handleGetBatch: Route = async (ctx, env, [id]) => {
  const b = batchStore(ctx.state, env.vendor).get(id);
  if (!b) return sendError(ctx, missing(id));
  advanceBatch(b, ctx.state, env.vendor);
  ctx.sendJson(200, b.obj, commonHeaders());
};

export const handleListBatches: Route = async (ctx, env) => {
  const all = [...batchStore(ctx.state, env.vendor).values()];
  for (const b of all) advanceBatch(b, ctx.state, env.vendor);
  const objs = all.map((b) => b.obj as Json & { id: string }).reverse();
  ctx.sendJson(200, cursorPage(objs, ctx.query, 20, 100), commonHeaders());
};

export const handleCancelBatch: Route = async (ctx, env, [id]) => {
  const b = batchStore(ctx.state, env.vendor).get(id);
  if (!b) return sendError(ctx, missing(id));
  advanceBatch(b, ctx.state, env.vendor);
  const status = String(b.obj.status);
  if (status === 'validating' || status === 'in_progress') {
    b.obj.status = 'cancelling';
    b.obj.cancelling_at = nowSec();
    b.phaseMs = Date.now();
  } else if (status !== 'cancelling' && status !== 'cancelled') {
    return sendError(ctx, { ...invalid(`Cannot cancel a batch with status '${status}'.`), status: 409 });
  }
  ctx.sendJson(200, b.obj, commonHeaders());
};
