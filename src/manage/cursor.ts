// Opaque pagination cursors: base64url of the last id returned. Ids sort lexically, so the next
// page is simply "id > last".
import { GatewayError } from '../errors/gateway-error.ts';

export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

/** Throws a 400 naming the `cursor` parameter when the value was not produced by encodeCursor. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[a-z]+_[0-9a-z]{26}$/.test(id) || encodeCursor(id) !== cursor) {
    throw new GatewayError('invalid_cursor', { param: 'cursor' });
  }
  return id;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** `rows` was fetched with limit + 1 so that one extra row tells whether another page exists. */
export function toPage<T extends { id: string }, O>(rows: T[], limit: number, map: (row: T) => O): Page<O> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(map),
    next_cursor: hasMore && last ? encodeCursor(last.id) : null,
    has_more: hasMore,
  };
}

/** What a list operation's query says about paging. */
export interface PageRequest {
  cursor?: string;
  limit?: number;
}

/**
 * The page after the request's cursor: `fetch` gets the decoded cursor and one row more than the
 * page holds, which tells whether another page exists.
 */
export async function pageAfter<T extends { id: string }, O>(
  query: PageRequest,
  fetch: (page: { afterId: string | undefined; limit: number }) => Promise<T[]>,
  map: (row: T) => O,
): Promise<Page<O>> {
  const limit = query.limit ?? 50;
  return toPage(await fetch({ afterId: decodeCursor(query.cursor), limit: limit + 1 }), limit, map);
}
