// The wire shapes of /alpha/v1/files as OpenAI writes them: the file object, the list page, and the
// list query with OpenAI's defaults (limit 10000, newest first).
import { GatewayError } from '../errors/gateway-error.ts';
import type { FileListQuery, FileRecord } from '../store/files.ts';

export const PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data'] as const;

export const MAX_LIST_LIMIT = 10_000;

export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  /** Unix seconds. */
  created_at: number;
  filename: string;
  purpose: string;
  status: string;
  expires_at: number | null;
  status_details: null;
}

export interface FileListPage {
  object: 'list';
  data: FileObject[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export function fileObject(f: FileRecord): FileObject {
  return {
    id: f.id,
    object: 'file',
    bytes: f.bytes,
    created_at: Math.floor(f.createdAt / 1000),
    filename: f.filename,
    purpose: f.purpose,
    status: f.status,
    expires_at: f.expiresAt === null ? null : Math.floor(f.expiresAt / 1000),
    status_details: null,
  };
}

/** `rows` holds up to `limit + 1` records: the one past the page only tells that there is more. */
export function listPage(rows: readonly FileRecord[], limit: number): FileListPage {
  const data = rows.slice(0, limit).map(fileObject);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: rows.length > limit,
  };
}

export function badPurpose(purpose: string): GatewayError {
  return new GatewayError('invalid_parameter', {
    message: `Invalid value: '${purpose.slice(0, 80)}'. Supported values are: ${PURPOSES.map((p) => `'${p}'`).join(', ')}.`,
    param: 'purpose',
  });
}

export function isPurpose(value: string): boolean {
  return (PURPOSES as readonly string[]).includes(value);
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s !== '' ? s : undefined;
}

const invalidQuery = (param: string, message: string) => new GatewayError('invalid_parameter', { message, param });

/** The list query of a caller who sees `projectId` (null: the whole org); `limit` is the page size asked for. */
export function parseListQuery(query: Record<string, unknown>, projectId: string | null): FileListQuery {
  const rawLimit = single(query, 'limit');
  let limit = MAX_LIST_LIMIT;
  if (rawLimit !== undefined) {
    limit = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_LIST_LIMIT)
      throw invalidQuery(
        'limit',
        `limit must be an integer from 1 to ${MAX_LIST_LIMIT}, got '${rawLimit.slice(0, 40)}'`,
      );
  }
  const order = single(query, 'order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    throw invalidQuery('order', `order must be 'asc' or 'desc', got '${order.slice(0, 40)}'`);
  return { projectId, purpose: single(query, 'purpose'), limit, order, after: single(query, 'after') };
}
