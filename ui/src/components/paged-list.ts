// One layout for every cursor-paged list (projects, keys, routing configs, webhook deliveries), so
// they all say "updating", show their error, their empty state and the pager in the same places.
// The logs page pages through the URL instead (a page of logs is a link to share) and keeps its own.
import { html } from 'htm/preact';
import type { ComponentChildren, VNode } from 'preact';
import { useState } from 'preact/hooks';
import type { Query } from '../api.ts';
import { type Loaded, useApi } from '../hooks.ts';
import type { Page } from '../types.ts';
import { ErrorBox, Loading, Pager, Updating } from './common.ts';

export interface Paged<T> {
  list: Loaded<Page<T>>;
  /** The cursors that led to this page; empty on the first. */
  cursors: string[];
  go: (cursors: string[]) => void;
}

/**
 * GET a paged list. The cursor trail belongs to one set of filters: a cursor names a place in one
 * listing, so new filters start again at the first page without each page having to remember to.
 */
export function usePaged<T>(path: string, filters: Query): Paged<T> {
  const key = JSON.stringify([path, filters]);
  const [trail, setTrail] = useState<{ key: string; cursors: string[] }>({ key, cursors: [] });
  const cursors = trail.key === key ? trail.cursors : [];
  const list = useApi<Page<T>>(path, { ...filters, cursor: cursors[cursors.length - 1] });
  return { list, cursors, go: (next) => setTrail({ key, cursors: next }) };
}

export function PagedList<T>({
  paged,
  what,
  errorTitle,
  empty,
  rows,
  children,
}: {
  paged: Paged<T>;
  /** Completes "Loading …". */
  what: string;
  errorTitle: string;
  /** Shown when the list is empty: what to do next. */
  empty: VNode;
  rows: (data: T[]) => VNode;
  /** Errors of the page's own actions on the rows, shown with the list's. */
  children?: ComponentChildren;
}) {
  const { list, cursors, go } = paged;
  const page = list.data;
  return html`<${Updating} when=${list.loading && page !== undefined} />
    <${ErrorBox} error=${list.error} title=${errorTitle} />
    ${children}
    ${list.loading && !page ? html`<${Loading} what=${what} />` : null}
    ${page && page.data.length === 0 ? empty : null}
    ${
      page && page.data.length > 0
        ? html`${rows(page.data)}
            <${Pager}
              hasMore=${page.has_more}
              atFirst=${cursors.length === 0}
              canPrev=${cursors.length > 0}
              onFirst=${() => go([])}
              onPrev=${() => go(cursors.slice(0, -1))}
              onNext=${() => page.next_cursor && go([...cursors, page.next_cursor])}
            />`
        : null
    }`;
}
