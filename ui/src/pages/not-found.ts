import { html } from 'htm/preact';
import { Empty } from '../components/common.ts';

export function NotFoundPage() {
  return html`<h1 tabindex="-1">Page not found</h1>
    <${Empty} title="There is no dashboard page at this address.">
      <p>Go to the <a href="/ui/overview">Overview</a> or pick a page from the menu.</p>
    <//>`;
}
