// /files: multipart upload, list, get, delete, content. One store per vendor so tenants stay apart.
import type { FakeState } from '../context.ts';
import { commonHeaders, type OaiVendor, type Route } from './env.ts';
import { invalid, notFound, sendError } from './errors.ts';
import { parseMultipart } from './multipart.ts';
import { cursorPage } from './pagination.ts';
import { newId, nowSec } from './util.ts';

export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  status: 'processed';
  expires_at: number | null;
  status_details: null;
}

interface StoredFile {
  meta: FileObject;
  data: Buffer;
}

const PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'];

export function fileStore(state: FakeState, vendor: OaiVendor): Map<string, StoredFile> {
  return state.store(`oai-files:${vendor}`, () => new Map<string, StoredFile>());
}

export function addFile(
  state: FakeState,
  vendor: OaiVendor,
  filename: string,
  purpose: string,
  data: Buffer,
): FileObject {
  const meta: FileObject = {
    id: newId('file-', 22),
    object: 'file',
    bytes: data.length,
    created_at: nowSec(),
    filename,
    purpose,
    status: 'processed',
    expires_at: null,
    status_details: null,
  };
  fileStore(state, vendor).set(meta.id, { meta, data });
  return meta;
}

export function getFileData(state: FakeState, vendor: OaiVendor, id: string): StoredFile | undefined {
  return fileStore(state, vendor).get(id);
}

const missing = (id: string) => notFound(`No such File object: ${id}`, 'id');

export const handleUploadFile: Route = async (ctx, env) => {
  const form = parseMultipart(await ctx.body(), ctx.header('content-type'));
  if (!form) return sendError(ctx, invalid('Expected multipart/form-data with a file and a purpose.'));
  const file = form.files.get('file');
  if (!file)
    return sendError(ctx, invalid("Missing required parameter: 'file'.", 'file', 'missing_required_parameter'));
  const purpose = form.fields.get('purpose');
  if (purpose === undefined)
    return sendError(ctx, invalid("Missing required parameter: 'purpose'.", 'purpose', 'missing_required_parameter'));
  if (!PURPOSES.includes(purpose))
    return sendError(
      ctx,
      invalid(
        `Invalid value: '${purpose}'. Supported values are: ${PURPOSES.map((p) => `'${p}'`).join(', ')}.`,
        'purpose',
        'invalid_value',
      ),
    );
  if (purpose === 'batch' && !file.filename.endsWith('.jsonl'))
    return sendError(ctx, invalid('Invalid file format for Batch API. Must be .jsonl', 'file'));
  const meta = addFile(ctx.state, env.vendor, file.filename, purpose, file.data);
  const seconds = Number(form.fields.get('expires_after[seconds]'));
  if (Number.isFinite(seconds) && seconds > 0) meta.expires_at = meta.created_at + seconds;
  ctx.sendJson(200, meta, commonHeaders());
};

export const handleListFiles: Route = async (ctx, env) => {
  const purpose = ctx.query.get('purpose');
  const all = [...fileStore(ctx.state, env.vendor).values()]
    .map((f) => f.meta)
    .filter((m) => !purpose || m.purpose === purpose);
  if (ctx.query.get('order') !== 'asc') all.reverse();
  ctx.sendJson(200, cursorPage(all, ctx.query, 10_000, 10_000), commonHeaders());
};

export const handleGetFile: Route = async (ctx, env, [id]) => {
  const f = getFileData(ctx.state, env.vendor, id);
  if (!f) return sendError(ctx, missing(id));
  ctx.sendJson(200, f.meta, commonHeaders());
};

export const handleDeleteFile: Route = async (ctx, env, [id]) => {
  if (!fileStore(ctx.state, env.vendor).delete(id)) return sendError(ctx, missing(id));
  ctx.sendJson(200, { id, object: 'file', deleted: true }, commonHeaders());
};

export const handleFileContent: Route = async (ctx, env, [id]) => {
  const f = getFileData(ctx.state, env.vendor, id);
  if (!f) return sendError(ctx, missing(id));
  ctx.send(200, f.data, { 'content-type': 'application/octet-stream', ...commonHeaders() });
};
