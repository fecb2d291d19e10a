// Cursor pages as the OpenAI list endpoints return them (`after`/`before` ids, `has_more`).
import { num } from './util.ts';

export interface CursorPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** `items` must already be in the requested order. Unknown cursors yield an empty page. */
export function cursorPage<T extends { id: string }>(
  items: T[],
  query: URLSearchParams,
  defLimit: number,
  maxLimit: number,
): CursorPage<T> {
  const limit = Math.min(Math.max(num(Number(query.get('limit') ?? defLimit)) ?? defLimit, 1), maxLimit);
  let start = 0;
  let end = items.length;
  const after = query.get('after');
  const before = query.get('before');
  if (after) {
    const i = items.findIndex((x) => x.id === after);
    start = i === -1 ? items.length : i + 1;
  }
  if (before) {
    const i = items.findIndex((x) => x.id === before);
    end = i === -1 ? 0 : i;
    // `before` pages end just ahead of the cursor
    if (!after) start = Math.max(0, end - limit);
  }
  const data = items.slice(start, Math.min(end, start + limit));
  return {
    object: 'list',
    data,
    first_id: data.length > 0 ? data[0].id : null,
    last_id: data.length > 0 ? data[data.length - 1].id : null,
    has_more: start + data.length < end,
  };
}
