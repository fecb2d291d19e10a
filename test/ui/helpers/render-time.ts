// How long a dashboard page takes to show its data, measured in the page itself: from navigation
// start until <main> is idle (no request in flight, no "Loading…", no error) and shows `ready`. A
// mutation observer takes the time, so the harness's own polling is not counted. Shared by the
// 1,000,000-row test (a generous bound) and bench/dashboard.ts (the figures in BENCHMARKS.md).
import type { Browser } from 'playwright-core';
import { inPage, screenshot, signedInContext, waitFor } from './browser.ts';

export interface Render {
  ms: number;
  /** Elements of `main .error` shown: a page that failed is not a fast page. */
  errors: number;
}

export const READY = {
  overview: '[data-testid="chart-requests"]:not([data-points="0"]) canvas',
  logs: '[data-testid="logs-table"] tbody tr',
} as const;

/** One cold load (a new browser context: the JS and CSS fetched and parsed again). */
export async function renderTime(
  browser: Browser,
  gw: { url: string; adminKey: string },
  path: string,
  ready: string,
  shot?: string,
): Promise<Render> {
  const context = await signedInContext(browser, gw.adminKey, 'org');
  // Text, not a function: see inPage.
  await context.addInitScript(`(() => {
    const selector = ${JSON.stringify(ready)};
    new MutationObserver(() => {
      const main = document.querySelector('main');
      const done =
        main && main.getAttribute('aria-busy') === 'false' &&
        main.querySelector('.loading') === null &&
        main.querySelector('.error') === null &&
        main.querySelector(selector) !== null;
      if (done && window.__readyAt === undefined) window.__readyAt = performance.now();
    }).observe(document, { subtree: true, childList: true, attributes: true });
  })();`);
  try {
    const page = await context.newPage();
    await page.goto(`${gw.url}/ui/${path}`);
    await waitFor(page, 'window.__readyAt !== undefined', 60_000);
    const ms = await inPage<number>(page, 'window.__readyAt');
    const errors = await page.locator('main .error').count();
    if (shot) await screenshot(page, shot);
    return { ms, errors };
  } finally {
    await context.close();
  }
}
