// A table's row of column headings, from the list of labels; `num` marks a right-aligned number column.
import { html } from 'htm/preact';

export type Column = string | { label: string; num: true };

export function HeadRow({ columns }: { columns: readonly Column[] }) {
  return html`<tr>
    ${columns.map((c) =>
      typeof c === 'string' ? html`<th scope="col">${c}</th>` : html`<th scope="col" class="num">${c.label}</th>`,
    )}
  </tr>`;
}
