// What a new user stumbled on in the dashboard (issue 29 item 12), each checked in Chromium at
// 1280x800 and, where the layout differs, at 390x844: the logs table fits the screen, no words run
// together, a cost of a few millionths of a dollar is shown whole, a blank chart says why, a budget
// past its limit says so, the Cache page turns the cache on, a period is not a red badge; and the
// overview's request count is the report's own (item 4). Writes test-results/logs-1280x800.png and
// test-results/overview-fresh.png, the screenshots the issue asks for.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { api } from '../helpers/proxy-env.ts';
import { browserSkipReason, DESKTOP, inPage, launch, PHONE, settled, signedInContext } from './helpers/browser.ts';
import { buildUi, REPO } from './helpers/build.ts';
import { insertRows, logRow } from './helpers/rows.ts';
import { type Seeded, seedGateway } from './helpers/seed.ts';

const RESULTS = join(REPO, 'test-results');
const skip = browserSkipReason();

/**
 * Records what the charts draw as text, with the left edge of each label, so a label cut off at the
 * canvas edge is seen (the axes are pixels, not DOM). Page code is text: see inPage.
 */
const RECORD_CANVAS_TEXT = `(() => {
  const drawn = [];
  window.__drawn = drawn;
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, x, y, maxWidth) {
    const width = this.measureText(String(text)).width;
    const left = this.textAlign === 'right' || this.textAlign === 'end' ? x - width : this.textAlign === 'center' ? x - width / 2 : x;
    const owner = this.canvas.closest('[data-testid]');
    drawn.push({ text: String(text), left, chart: owner ? owner.getAttribute('data-testid') : null });
    return fillText.call(this, text, x, y, maxWidth);
  };
})();`;

const text = (page: Page, selector: string) =>
  inPage<string>(page, `(document.querySelector(${JSON.stringify(selector)})?.innerText ?? '').replace(/\\s+/g, ' ')`);

describe('dashboard papercuts', { skip }, () => {
  let seeded: Seeded;
  let gw: Gateway;
  let fresh: Gateway;
  let browser: Browser;

  before(async () => {
    buildUi();
    mkdirSync(RESULTS, { recursive: true });
    seeded = await seedGateway();
    gw = seeded.env.gw;
    fresh = await startGateway();
    browser = await launch();
    // A budget the seeded calls are already far past.
    const r = await api(gw, 'POST', '/manage/v1/budgets', {
      name: 'Past its limit',
      scope: { type: 'org' },
      period: 'monthly',
      limit_usd: 0.000001,
      action: 'alert_only',
    });
    assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.json));
  });

  after(async () => {
    await browser?.close();
    await fresh?.close();
    await seeded?.env.close();
  });

  async function open(on: Gateway, path: string, opts: { viewport?: typeof DESKTOP; init?: string } = {}) {
    const context = await signedInContext(browser, on.adminKey, 'org', opts.viewport ?? DESKTOP);
    if (opts.init) await context.addInitScript(opts.init);
    const page = await context.newPage();
    await page.goto(`${on.url}/ui/${path}`);
    await settled(page);
    return page;
  }

  interface Fit {
    wrap: [number, number];
    page: number;
    viewport: number;
    /** Per row: the status, latency, cost and cache cells' right edge and whether their text is cut. */
    cells: Array<{ label: string; right: number; width: number; cut: boolean }>;
  }

  const measureLogs = (page: Page) =>
    inPage<Fit>(
      page,
      `(() => {
        const table = document.querySelector('[data-testid="logs-table"]');
        const wrap = table.parentElement;
        const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
        const cells = [...table.querySelectorAll('tbody tr')].flatMap((row) =>
          ['Status', 'Latency', 'Cost', 'Cache'].map((label) => {
            const td = row.cells[heads.indexOf(label)];
            const box = td.getBoundingClientRect();
            return { label, right: box.right, width: box.width, cut: td.scrollWidth > td.clientWidth };
          }));
        return { wrap: [wrap.scrollWidth, wrap.clientWidth], page: document.documentElement.scrollWidth,
          viewport: window.innerWidth, cells };
      })()`,
    );

  function assertFits(fit: Fit, where: string): void {
    assert.ok(fit.wrap[0] <= fit.wrap[1], `${where}: the logs table scrolls sideways (${fit.wrap.join(' > ')})`);
    assert.ok(fit.page <= fit.viewport, `${where}: the page is ${fit.page}px wide`);
    assert.ok(fit.cells.length >= 40);
    for (const c of fit.cells) {
      assert.ok(c.width > 0 && c.right <= fit.viewport, `${where}: ${c.label} is off screen (${c.right})`);
      assert.equal(c.cut, false, `${where}: ${c.label} is cut`);
    }
  }

  test('logs at 1280x800: status, latency, cost and cache on screen, long model names cut with a title', async () => {
    const page = await open(gw, 'logs');
    assertFits(await measureLogs(page), '1280x800');
    const long = await inPage<Array<{ text: string; title: string | null; cut: boolean }>>(
      page,
      `[...document.querySelectorAll('[data-testid="logs-table"] td[data-label="Model"] > *')]
        .filter((e) => e.textContent.includes('llama-v3p1-70b-instruct'))
        .map((e) => ({ text: e.textContent, title: e.getAttribute('title'), cut: e.scrollWidth > e.clientWidth }))`,
    );
    assert.ok(
      long.some((m) => m.cut),
      'no long model name is cut short',
    );
    for (const m of long) assert.equal(m.title, m.text);
    await page.screenshot({ path: join(RESULTS, 'logs-1280x800.png') });
    await page.context().close();
  });

  test('logs at 390x844: each request is a block of labelled fields, nothing scrolls sideways', async () => {
    const page = await open(gw, 'logs', { viewport: PHONE });
    assertFits(await measureLogs(page), '390x844');
    await inPage(page, `document.querySelector('[data-testid="logs-table"]').scrollIntoView()`);
    await page.screenshot({ path: join(RESULTS, 'logs-390x844.png') });
    await page.context().close();
  });

  test('no words run together where a text meets an element', async () => {
    let page = await open(fresh, 'logs');
    assert.match(await text(page, 'main'), /for example POST \/alpha\/v1\/chat\/completions; it is listed/);
    await page.goto(`${fresh.url}/ui/overview`);
    await settled(page);
    assert.match(await text(page, 'main'), /\(POST \/alpha\/v1\/chat\/completions or POST \/beta\/v1\/messages with/);
    await page.context().close();

    page = await open(gw, `configs/${seeded.configs.main}`);
    await page.click('button:has-text("Show the decision")');
    await page.waitForSelector('[data-testid="playground-result"]');
    assert.match(
      await text(page, '[data-testid="playground-result"] p'),
      /Policy fallback · @main v1 · would call [a-z]/,
    );
    await page.goto(`${gw.url}/ui/budgets`);
    await settled(page);
    const heads = await inPage<string[]>(
      page,
      `[...document.querySelectorAll('[data-testid="budget"] .card-head')].map((e) => e.textContent.replace(/\\s+/g, ' '))`,
    );
    assert.ok(
      heads.some((h) => /monthly blocks/.test(h)),
      heads.join(' | '),
    );
    await page.context().close();
  });

  test('a cost of a few millionths of a dollar is shown whole, in the cards and on the chart axis', async () => {
    // The Support project has one call, a few millionths of a dollar.
    const page = await open(gw, `overview?project_id=${seeded.projectB.id}`, { init: RECORD_CANVAS_TEXT });
    const cost = await text(page, '[data-testid="totals"] .stat:nth-child(2) .stat-value');
    assert.match(cost, /^\$0\.0000\d+$/);
    const labels = await inPage<Array<{ text: string; left: number; chart: string | null }>>(
      page,
      `window.__drawn.filter((d) => d.chart === 'chart-cost' && d.text.startsWith('$'))`,
    );
    assert.ok(
      labels.some((l) => /^\$0\.00000\d/.test(l.text)),
      JSON.stringify(labels),
    );
    for (const l of labels) assert.ok(l.left >= 0, `the axis label ${l.text} starts at ${l.left.toFixed(1)}px`);
    await page.context().close();

    // The cache panel's "Saved" (a few cache hits' worth) sits in a half-width card.
    for (const viewport of [DESKTOP, PHONE]) {
      const overview = await open(gw, 'overview', { viewport });
      const overflowing = await inPage<string[]>(
        overview,
        `[...document.querySelectorAll('.stat')].filter((s) => s.scrollWidth > s.clientWidth).map((s) => s.textContent)`,
      );
      assert.deepEqual(overflowing, [], `at ${viewport.width}px`);
      assert.match(await text(overview, '[data-testid="cache-summary"]'), /Saved \$0\.0000\d/);
      await overview.context().close();
    }
  });

  test('a blank chart says why (the overview of a fresh gateway)', async () => {
    const page = await open(fresh, 'overview');
    const charts = await inPage<Array<{ id: string; says: string | null }>>(
      page,
      `[...document.querySelectorAll('figure.chart')].map((f) => ({ id: f.dataset.testid,
        says: f.querySelector('[data-testid="chart-empty"]')?.textContent ?? null }))`,
    );
    assert.equal(charts.length, 4);
    for (const c of charts) assert.equal(c.says, 'No requests in this period', c.id);
    await page.screenshot({ path: join(RESULTS, 'overview-fresh.png'), fullPage: true });
    await page.context().close();

    // With traffic, a chart that is flat for a reason of its own says that reason.
    const busy = await open(gw, 'overview');
    assert.equal(await busy.locator('[data-testid="chart-requests"] [data-testid="chart-empty"]').count(), 0);
    await busy.context().close();
  });

  test('a budget past its limit says how far past', async () => {
    const page = await open(gw, 'budgets');
    const card = page.locator('[data-testid="budget"]', { hasText: 'Past its limit' });
    const over = card.locator('[data-testid="budget-over"]');
    assert.equal(await over.count(), 1, 'the budget does not say it is over its limit');
    assert.match((await over.textContent()) ?? '', /^over the limit by \$0\.\d+$/);
    assert.equal(await card.locator('.meter-over').count(), 1);
    const meter = card.locator('[role="meter"]');
    assert.ok(Number(await meter.getAttribute('aria-valuenow')) <= Number(await meter.getAttribute('aria-valuemax')));
    assert.match((await meter.getAttribute('aria-valuetext')) ?? '', /× the limit\), over the limit by \$/);
    assert.match((await card.locator('.card-head').innerText()).replace(/\s+/g, ' '), /monthly alerts only over limit/);
    await page.context().close();
  });

  test('a period is a plain badge, also on a budget past its limit', async () => {
    const page = await open(gw, 'budgets');
    const badges = await inPage<Array<{ text: string; cls: string }>>(
      page,
      `[...document.querySelectorAll('.badge')].map((b) => ({ text: b.textContent.trim(), cls: b.className }))`,
    );
    const periods = badges.filter((b) => /^(daily|weekly|monthly|total)$/.test(b.text));
    assert.ok(periods.length >= 3);
    for (const b of periods) assert.doesNotMatch(b.cls, /\b(bad|warn)\b/, `the ${b.text} badge`);
    await page.context().close();
  });

  test('the Cache page turns the cache on for a project', async () => {
    const page = await open(gw, `cache?project_id=${seeded.projectB.id}`);
    const form = page.locator('[data-testid="cache-settings"]');
    assert.equal(await form.count(), 1, 'the Cache page has no settings form');
    assert.equal(await form.locator('input[name="enabled"]').isChecked(), false);
    await form.locator('input[name="enabled"]').check();
    await form.locator('select[name="mode"]').selectOption('exact');
    await form.locator('button:has-text("Save cache settings")').click();
    await form.locator('text=Saved: the cache is on (exact).').waitFor();
    const project = await api(gw, 'GET', `/manage/v1/projects/${seeded.projectB.id}`);
    const cache = (project.json as { settings: { semantic_cache: { enabled: boolean; mode: string } } }).settings
      .semantic_cache;
    assert.deepEqual({ enabled: cache.enabled, mode: cache.mode }, { enabled: true, mode: 'exact' });
    await page.locator('option', { hasText: 'Support (cache exact)' }).waitFor({ state: 'attached' });

    // And it answers: the same call twice, the second from the cache.
    const answers: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${gw.url}/alpha/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${seeded.projectB.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Cache me' }] }),
      });
      await res.text();
      answers.push(res.headers.get('x-svc-cache') ?? '');
    }
    assert.deepEqual(answers, ['MISS', 'HIT']);
    await page.context().close();
  });

  test("the overview's request count is the report's, with the report's default request types", async () => {
    // Polls and listings, as a batch or file client makes them.
    const at = new Date(Date.now() - 5 * 60_000).toISOString();
    await insertRows(gw, [
      ...['batch_retrieve', 'batch_retrieve', 'batch_list', 'file_list', 'response_retrieve'].map((requestType) =>
        logRow(gw, { requestType, createdAt: at, modelRequested: null, modelUsed: null, provider: null }),
      ),
    ]);
    const context = await signedInContext(browser, gw.adminKey, 'org');
    const page = await context.newPage();
    const reports: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/manage/v1/analytics/report') && r.url().includes('include_comparison'))
        reports.push(r.url());
    });
    await page.goto(`${gw.url}/ui/overview`);
    await settled(page);
    assert.equal(reports.length, 1);
    const asked = new URL(reports[0] as string);
    assert.equal(asked.searchParams.get('request_type'), null, 'the overview chooses no request types itself');
    const report = await api(gw, 'GET', `${asked.pathname}${asked.search}`);
    const shown = Number(
      (await text(page, '[data-testid="totals"] .stat:nth-child(1) .stat-value')).replace(/\D/g, ''),
    );
    assert.equal(shown, (report.json as { totals: { requests: number } }).totals.requests);
    await context.close();
  });
});
