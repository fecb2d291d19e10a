// The dashboard in a real browser (Debian's Chromium) against a gateway seeded with traffic through
// the fake upstream: sign-in, every page without a console error, the overview's charts, the logs
// explorer down to a request's trace, a replay against another config, the config editor with its
// versions, a project-scoped key's view, the phone layout and the keyboard. Every page is saved as
// a screenshot under test-results/ui/ (UI_DOCS_SCREENSHOTS=1 also refreshes the README's two).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import {
  browserSkipReason,
  DESKTOP,
  inPage,
  launch,
  PHONE,
  screenshot,
  settled,
  signedInContext,
  watchErrors,
} from './helpers/browser.ts';
import { buildUi, REPO } from './helpers/build.ts';
import { type Seeded, seedGateway } from './helpers/seed.ts';

const skip = browserSkipReason();
let seeded: Seeded;
let browser: Browser;
let url: string;
/** Every request the pages made, as `METHOD path`. */
const requests: string[] = [];

const PAGES = [
  'overview',
  'logs',
  'configs',
  'configs/new',
  'providers',
  'projects',
  'keys',
  'budgets',
  'webhooks',
  'cache',
];

/** Console lines a scenario causes on purpose (an API refusal it tests shows as a failed load). */
function unexpected(errors: string[], allowed: RegExp[] = []): string[] {
  return errors.filter((e) => !allowed.some((re) => re.test(e)));
}

async function orgPage(viewport = DESKTOP): Promise<{ page: Page; errors: string[] }> {
  const context = await signedInContext(browser, seeded.env.gw.adminKey, 'org', viewport);
  const page = await context.newPage();
  page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  return { page, errors: watchErrors(page) };
}

async function visit(page: Page, path: string): Promise<void> {
  await page.goto(`${url}/ui/${path}`);
  await settled(page);
}

describe('dashboard in a real browser', { skip }, () => {
  before(async () => {
    buildUi();
    seeded = await seedGateway({ history: 3000 });
    url = seeded.env.gw.url;
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await seeded?.env.close();
  });

  test('sign-in: a wrong key is refused on the form, a right one is kept for the tab', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${url}/ui/logs`);
    await page.fill('input[name="api_key"]', 'sy-not-a-key');
    await page.click('button[type="submit"]');
    await page.waitForSelector('.error:has-text("Sign-in failed")');
    await screenshot(page, 'signin-refused');
    await page.fill('input[name="api_key"]', seeded.env.gw.adminKey);
    await page.click('button[type="submit"]');
    await page.waitForSelector('h1:has-text("Logs")');
    const stored = await inPage<string | null>(page, "sessionStorage.getItem('switchyard.session')");
    assert.deepEqual(JSON.parse(stored ?? '{}'), {
      key: seeded.env.gw.adminKey,
      via: 'key',
      scope: 'org',
      role: 'admin',
      name: 'admin (SWITCHYARD_ADMIN_KEY)',
    });
    assert.deepEqual(unexpected(errors, [/status of 401/]), []);
    await page.click('button:has-text("Sign out")');
    await page.waitForSelector('input[name="api_key"]');
    assert.equal(await inPage<string | null>(page, "sessionStorage.getItem('switchyard.session')"), null);
    await context.close();
  });

  test('every page loads with no console error and no error shown', async () => {
    const { page, errors } = await orgPage();
    const all = [...PAGES, `logs/${seeded.ids.fallback}`, `configs/${seeded.configs.main}`];
    for (const path of all) {
      await visit(page, path);
      assert.equal(await page.locator('main .error').count(), 0, `${path} shows an error`);
      await screenshot(page, `desktop-${path.replace(/\//g, '-').replace(/(req|rc)_\w+/, '$1')}`);
    }
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  test('overview: the charts render with data points, the top lists and panels fill in', async () => {
    const { page, errors } = await orgPage();
    await visit(page, 'overview');
    const chart = page.locator('[data-testid="chart-requests"]');
    assert.ok(Number(await chart.getAttribute('data-points')) > 0);
    assert.equal(await chart.locator('canvas').count(), 1);
    const totals = (await page.locator('[data-testid="totals"]').textContent()) ?? '';
    assert.ok(Number(/Requests\s*([\d,]+)/.exec(totals)?.[1]?.replace(/,/g, '')) >= 3016, totals);
    assert.match((await page.locator('[data-testid="top-model"]').textContent()) ?? '', /claude-3-5-haiku-latest/);
    assert.match((await page.locator('[data-testid="top-project"]').textContent()) ?? '', /Search/);
    assert.match((await page.locator('[data-testid="cache-summary"]').textContent()) ?? '', /Hit rate\s*\d/);
    assert.match((await page.locator('[data-testid="budget-summary"]').textContent()) ?? '', /Org monthly/);
    // Grouping redraws one line per model.
    await page.selectOption('select[name="group_by"]', 'model');
    await page.waitForURL(/group_by=model/);
    await settled(page);
    assert.match((await page.locator('[data-testid="chart-requests"] .u-legend').textContent()) ?? '', /gpt-4o-mini/);
    if (process.env.UI_DOCS_SCREENSHOTS === '1') {
      await page.selectOption('select[name="group_by"]', '');
      await settled(page);
      await page.screenshot({ path: join(REPO, 'docs', 'dashboard-overview.png') });
    }
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  test('logs: a known request is listed, filters narrow the list, its detail shows the trace', async () => {
    const { page, errors } = await orgPage();
    await visit(page, 'logs');
    await page.waitForSelector(`a:has-text("${seeded.ids.fallback}")`);
    await page.fill('input[name="model"]', '@main');
    await page.click('button:has-text("Apply filters")');
    await page.waitForURL(/model=%40main/);
    await settled(page);
    assert.equal(await page.locator('[data-testid="logs-table"] tbody tr').count(), 2);
    await page.click(`a:has-text("${seeded.ids.fallback}")`);
    await page.waitForURL(new RegExp(`/ui/logs/${seeded.ids.fallback}$`));
    await settled(page);
    const attempts = page.locator('[data-testid="waterfall"] [data-testid="attempt"]');
    assert.equal(await attempts.count(), 2);
    assert.match((await attempts.nth(0).textContent()) ?? '', /500/);
    assert.match((await attempts.nth(1).textContent()) ?? '', /served/);
    assert.match((await page.locator('[data-testid="cost-breakdown"]').textContent()) ?? '', /Total/);
    assert.match((await page.locator('[data-testid="request-body"]').textContent()) ?? '', /Hello there/);
    if (process.env.UI_DOCS_SCREENSHOTS === '1')
      await page.screenshot({ path: join(REPO, 'docs', 'dashboard-log-detail.png') });
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  test('replay against another config: the decision, then both results side by side', async () => {
    const { page, errors } = await orgPage();
    await visit(page, `logs/${seeded.ids.fallback}`);
    await page.selectOption('select[name="routing_config"]', 'cheap');
    await page.click('button:has-text("Show the decision")');
    await page.waitForSelector('[data-testid="replay-result"]');
    assert.match(
      (await page.locator('[data-testid="replay-result"]').textContent()) ?? '',
      /google\/gemini-2\.0-flash/,
    );
    assert.match(
      (await page.locator('[data-testid="replay-original"]').textContent()) ?? '',
      /anthropic\/claude-3-5-haiku-latest/,
    );

    await page.uncheck('input[name="dry_run"]');
    await page.click('button:has-text("Replay for real")');
    await page.waitForSelector('[data-testid="replay-result"] a.mono');
    const replay = (await page.locator('[data-testid="replay-result"]').textContent()) ?? '';
    const original = (await page.locator('[data-testid="replay-original"]').textContent()) ?? '';
    assert.match(replay, /gemini-2\.0-flash/);
    assert.match(replay, /200/);
    assert.match(original, /claude-3-5-haiku-latest/);
    assert.match(original, /Echo: Hello there/);
    await screenshot(page, 'desktop-replay');
    // The replay is a request of its own, logged with replay_of.
    await page.click('[data-testid="replay-result"] a.mono');
    await settled(page);
    assert.match(
      (await page.locator('[data-testid="log-summary"]').textContent()) ?? '',
      new RegExp(seeded.ids.fallback),
    );
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  test('configs: created and edited in the JSON editor, errors inline, two versions compared', async () => {
    const { page, errors } = await orgPage();
    await visit(page, 'configs/new');
    const editor = page.locator('#config-json');
    await editor.fill(
      '{\n  "name": "UI test",\n  "strategy": "single",\n  "config": { "model": "openai/gpt-4o-mini" },\n  "colour": 1\n}',
    );
    await page.waitForSelector('[data-testid="editor-problems"] li:has-text("colour")');
    assert.match((await page.locator('[data-testid="editor-problems"]').textContent()) ?? '', /Line 5/);
    assert.equal(await page.locator('button:has-text("Create config")').isDisabled(), true);
    // Valid for the schema, refused by the server: its 400 is shown at the field it names.
    await editor.fill('{\n  "name": "UI test",\n  "slug": "ui-test",\n  "strategy": "nope",\n  "config": {}\n}');
    await page.click('button:has-text("Create config")');
    await page.waitForSelector('[data-testid="editor-problems"] li.server');
    assert.match(
      (await page.locator('[data-testid="editor-problems"] li.server').textContent()) ?? '',
      /Line 4.*strategy/s,
    );
    await editor.fill(
      '{\n  "name": "UI test",\n  "slug": "ui-test",\n  "strategy": "single",\n  "config": { "model": "openai/gpt-4o-mini" }\n}',
    );
    await page.click('button:has-text("Create config")');
    await page.waitForURL(/\/ui\/configs\/rc_/);
    await settled(page);

    const text = await page.locator('#config-json').inputValue();
    await page.locator('#config-json').fill(text.replace('openai/gpt-4o-mini', 'google/gemini-2.0-flash'));
    await page.click('button:has-text("Save new version")');
    await page.waitForSelector('[data-testid="versions-table"] tbody tr:nth-child(2)');
    await settled(page);
    const diff = (await page.locator('[data-testid="version-diff"]').textContent()) ?? '';
    assert.match(diff, /Version 1 → version 2/);
    assert.match(
      (await page.locator('[data-testid="version-diff"] .diff-del').textContent()) ?? '',
      /"model": "openai\/gpt-4o-mini"/,
    );
    assert.match(
      (await page.locator('[data-testid="version-diff"] .diff-add').textContent()) ?? '',
      /"model": "google\/gemini-2\.0-flash"/,
    );
    await screenshot(page, 'desktop-config-versions');

    // Restore version 1: version 3 becomes current with v1's model.
    await page.click('button:has-text("Restore v1")');
    await page.click('button:has-text("Yes, restore v1")');
    await page.waitForSelector('[data-testid="versions-table"] tbody tr:nth-child(3)');
    await settled(page);
    assert.match(await page.locator('#config-json').inputValue(), /openai\/gpt-4o-mini/);

    // The playground shows the decision envelope.
    await page.click('button:has-text("Show the decision")');
    await page.waitForSelector('[data-testid="playground-result"]');
    assert.match((await page.locator('[data-testid="playground-result"]').textContent()) ?? '', /openai\/gpt-4o-mini/);
    assert.deepEqual(unexpected(errors, [/status of 400/]), []);
    await page.context().close();
  });

  test('projects, keys, providers, budgets, webhooks and cache: the everyday actions', async () => {
    const { page, errors } = await orgPage();
    // A project, then a key for it: the plaintext once, then only its prefix; then revoked.
    await visit(page, 'projects');
    await page.fill('form[aria-label="Create a project"] input[name="name"]', 'UI project');
    await page.click('button:has-text("Create project")');
    await page.waitForSelector('[data-testid="projects-table"] td:has-text("UI project")');
    await visit(page, 'keys');
    await page.fill('form[aria-label="Create an API key"] input[name="name"]', 'ui key');
    await page.selectOption('form[aria-label="Create an API key"] select[name="project_id"]', {
      label: 'Project: UI project',
    });
    await page.click('button:has-text("Create key")');
    const secret = await page.locator('[data-testid="secret"] input').inputValue();
    assert.match(secret, /^sy-/);
    await page.click('button:has-text("I have stored it")');
    assert.equal(await page.locator('[data-testid="secret"]').count(), 0);
    const row = page.locator('[data-testid="keys-table"] tr', { hasText: 'ui key' });
    assert.doesNotMatch((await row.textContent()) ?? '', new RegExp(secret));
    await row.locator('button:has-text("Revoke")').click();
    await row.locator('button:has-text("Yes, revoke")').click();
    // Revoked keys leave the list (unless "Show revoked" is ticked).
    await row.waitFor({ state: 'detached' });

    // A key rotation the vendor refuses shows the API's 422; a good one is confirmed.
    await visit(page, 'providers');
    const openai = page.locator('[data-testid="provider"]', {
      has: page.locator('h3', { hasText: /^openai \(fake\)/ }),
    });
    await openai.locator('button:has-text("Rotate key")').click();
    await openai.locator('input[name="api_key"]').fill('sk-bad-key');
    await openai.locator('form button:has-text("Rotate key")').click();
    await openai.locator('.error:has-text("422")').waitFor();
    await openai.locator('input[name="api_key"]').fill('sk-new-good-key');
    await openai.locator('form button:has-text("Rotate key")').click();
    await openai.locator('text=Rotated').waitFor();
    await openai.locator('button:has-text("Health windows")').click();
    await openai.locator('[data-testid="health-chart"] svg').waitFor();

    // A budget, with its burn-down chart.
    await visit(page, 'budgets');
    await page.fill('form[aria-label="Create a budget"] input[name="name"]', 'UI budget');
    await page.fill('form[aria-label="Create a budget"] input[name="limit_usd"]', '20');
    await page.click('button:has-text("Create budget")');
    const budget = page.locator('[data-testid="budget"]', { hasText: 'UI budget' });
    await budget.waitFor();
    await budget.locator('button:has-text("Burn-down")').click();
    await budget.locator('figure.chart canvas').waitFor();

    // A webhook endpoint: its secret once, a test event, the delivery's attempts.
    await visit(page, 'webhooks');
    await page.fill(
      'form[aria-label="Create a webhook endpoint"] input[name="url"]',
      `${seeded.env.fake.url}/ui-hooks`,
    );
    await page.click('button:has-text("Create endpoint")');
    assert.match(await page.locator('[data-testid="secret"] input').inputValue(), /^whsec_/);
    const endpoint = page.locator('[data-testid="webhook-endpoint"]', { hasText: '/ui-hooks' });
    await endpoint.locator('button:has-text("Send test")').click();
    await endpoint.locator('text=Test delivery').waitFor();
    await settled(page);
    await page.locator('[data-testid="deliveries"] button.row-toggle', { hasText: '/ui-hooks' }).first().click();
    await page.locator('[data-testid="delivery-detail"] td:has-text("404")').first().waitFor();

    // The cache of the project that has it on, and a purge.
    await visit(page, `cache?project_id=${seeded.projectA.id}`);
    assert.match((await page.locator('[data-testid="cache-stats"]').textContent()) ?? '', /Hit rate\s*66\.7%/);
    await page.click('button:has-text("Purge cache")');
    await page.click('button:has-text("Yes, purge cache")');
    await page.locator('text=/Purged \\d+ entries/').waitFor();
    await screenshot(page, 'desktop-cache-purged');
    // The refused rotation is the one failed load the scenario causes.
    assert.deepEqual(unexpected(errors, [/status of 422/]), []);
    await page.context().close();
  });

  test('a project-scoped key sees its own project only', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${url}/ui/overview`);
    await page.fill('input[name="api_key"]', seeded.projectA.key);
    await page.click('button[type="submit"]');
    await settled(page);
    assert.match((await page.locator('.scope').textContent()) ?? '', /Project key/);
    assert.equal(await page.locator('nav a[href="/ui/providers"]').count(), 0);
    const projects = (await page.locator('[data-testid="top-project"]').textContent()) ?? '';
    assert.doesNotMatch(projects, /\(no project\)|Support/);

    await page.click('nav a[href="/ui/logs"]');
    await settled(page);
    const listed = (await page.locator('[data-testid="logs-table"]').textContent()) ?? '';
    assert.match(listed, new RegExp(seeded.ids.projectA));
    assert.doesNotMatch(listed, new RegExp(`${seeded.ids.projectB}|${seeded.ids.fallback}`));
    await screenshot(page, 'project-key-logs');

    await page.goto(`${url}/ui/logs/${seeded.ids.projectB}`);
    await settled(page);
    assert.match((await page.locator('main .error').textContent()) ?? '', /404/);
    await page.goto(`${url}/ui/providers`);
    await settled(page);
    assert.match((await page.locator('main').textContent()) ?? '', /needs an org-wide API key/);
    // The sign-in probe (GET /projects answers 403 for a project key) and the other project's row.
    assert.deepEqual(unexpected(errors, [/status of 403/, /status of 404/]), []);
    await context.close();
  });

  test('at 390x844: no page is wider than the screen, the menu opens', async () => {
    const { page, errors } = await orgPage(PHONE);
    for (const path of [
      'overview',
      'logs',
      `logs/${seeded.ids.fallback}`,
      `configs/${seeded.configs.main}`,
      'budgets',
      'webhooks',
    ]) {
      await visit(page, path);
      const width = await inPage<number>(page, 'document.documentElement.scrollWidth');
      assert.ok(width <= PHONE.width, `${path} is ${width}px wide`);
      await screenshot(page, `phone-${path.replace(/\//g, '-').replace(/(req|rc)_\w+/, '$1')}`);
    }
    assert.equal(await page.locator('nav#nav a[href="/ui/logs"]').isVisible(), false);
    await page.click('button.menu-toggle');
    assert.equal(await page.locator('nav#nav a[href="/ui/logs"]').isVisible(), true);
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  test('keyboard: a skip link first, links work with Enter, focus lands on the new heading', async () => {
    const { page, errors } = await orgPage();
    await visit(page, 'overview');
    await page.keyboard.press('Tab');
    assert.equal(await inPage<string>(page, 'document.activeElement?.textContent'), 'Skip to content');
    await page.focus('nav a[href="/ui/logs"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/ui\/logs$/);
    await settled(page);
    assert.equal(await inPage<string>(page, 'document.activeElement?.tagName'), 'H1');
    // Focus is visible: the focused control gets an outline.
    await page.keyboard.press('Tab');
    const outline = await inPage<string>(page, 'getComputedStyle(document.activeElement).outlineStyle');
    assert.notEqual(outline, 'none');
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  test('first load: measured from navigation start to a rendered overview', async (t) => {
    const context = await signedInContext(browser, seeded.env.gw.adminKey, 'org');
    const page = await context.newPage();
    await page.goto(`${url}/ui/overview`);
    await settled(page);
    const timing = await inPage<{ domContentLoaded: number; load: number; rendered: number }>(
      page,
      `(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        return { domContentLoaded: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, rendered: performance.now() };
      })()`,
    );
    t.diagnostic(
      `first load: DOMContentLoaded ${timing.domContentLoaded.toFixed(0)} ms, load ${timing.load.toFixed(0)} ms, overview rendered with data ${timing.rendered.toFixed(0)} ms`,
    );
    assert.ok(timing.rendered < 5000, `the overview took ${timing.rendered} ms`);
    await context.close();
  });

  test('the pages called the public management API only, and only operations it documents', () => {
    const doc = parse(readFileSync(join(REPO, 'openapi.yaml'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => ({
        method: m.toUpperCase(),
        re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      })),
    );
    const api = requests.filter((r) => !/^GET \/ui(\/|$)/.test(r));
    assert.ok(api.length > 20);
    for (const r of api) {
      const [method, path] = r.split(' ') as [string, string];
      assert.ok(path.startsWith('/manage/v1/'), `${r} is outside the management API`);
      assert.ok(
        operations.some((o) => o.method === method && o.re.test(path)),
        `${r} is not an operation of openapi.yaml`,
      );
    }
  });
});
