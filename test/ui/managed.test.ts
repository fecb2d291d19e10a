// The dashboard shows what the SWITCHYARD_CONFIG file owns as read-only (issue 36): a "managed by
// config" badge, and the reason in place of the edit and delete controls the API would refuse (409),
// while resources made through the API keep theirs. In a real browser (Debian's Chromium).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { applyPlan, makePlan, readConfigFile } from '../../src/config-file/index.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { browserSkipReason, inPage, launch, settled, signedInContext, watchErrors } from './helpers/browser.ts';
import { buildUi } from './helpers/build.ts';

const skip = browserSkipReason();
const FILE = `
projects:
  - slug: filed-team
routing_configs:
  - slug: filed
    strategy: single
    config: { model: openai/gpt-4o-mini }
`;

describe('file-owned resources in the dashboard', { skip }, () => {
  let gw: Gateway;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const ids = { filed: '', byHand: '' };

  before(async () => {
    buildUi();
    gw = await startGateway();
    const org = (await gw.app.svc.stores.orgKeys.firstOrg())?.id ?? '';
    const file = join(mkdtempSync(join(tmpdir(), 'sy-ui-managed-')), 'switchyard.yaml');
    writeFileSync(file, FILE);
    const plan = await makePlan(gw.app.svc, org, readConfigFile(file));
    await applyPlan(plan);
    ids.filed = plan.ctx.ids.get('routing_config')?.get('filed') ?? '';
    const res = await fetch(`${gw.url}/manage/v1/routing-configs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'by-hand', strategy: 'single', config: { model: 'openai/gpt-4o-mini' } }),
    });
    assert.equal(res.status, 201);
    ids.byHand = ((await res.json()) as { id: string }).id;
    browser = await launch();
    page = await (await signedInContext(browser, gw.adminKey, 'org')).newPage();
    errors = watchErrors(page);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const visit = async (path: string) => {
    await page.goto(`${gw.url}/ui/${path}`);
    await settled(page);
  };
  const text = (selector: string) =>
    inPage<string>(page, `document.querySelector(${JSON.stringify(selector)})?.textContent ?? ''`);
  const has = (selector: string) =>
    inPage<boolean>(page, `document.querySelector(${JSON.stringify(selector)}) !== null`);

  test('the configs list badges the file’s config only', async () => {
    await visit('configs');
    const rows = await inPage<string[]>(
      page,
      `[...document.querySelectorAll('[data-testid="configs-table"] tbody tr')].map((r) => r.textContent)`,
    );
    assert.ok(
      rows.some((r) => r.includes('@filed') && r.includes('managed by config')),
      rows.join('\n'),
    );
    assert.ok(
      rows.some((r) => r.includes('@by-hand') && !r.includes('managed by config')),
      rows.join('\n'),
    );
  });

  test('a file-owned config is read-only, with the reason; one made by hand keeps its controls', async () => {
    await visit(`configs/${ids.filed}`);
    assert.match(await text('h1'), /managed by config/);
    assert.match(await text('[data-testid="managed-reason"]'), /SWITCHYARD_CONFIG/);
    assert.equal(await has('button.danger, button[aria-label="Delete config"]'), false);
    assert.doesNotMatch(await text('main'), /Delete config|Save new version/);
    assert.equal(await has('pre[aria-label="Routing config definition (read-only)"]'), true);
    await visit(`configs/${ids.byHand}`);
    assert.match(await text('main'), /Delete config/);
    assert.match(await text('main'), /Save new version/);
    assert.doesNotMatch(await text('h1'), /managed by config/);
  });

  test('the projects page: the file’s project has the badge and no delete control', async () => {
    await visit('projects');
    const row = await inPage<string>(
      page,
      `[...document.querySelectorAll('tbody tr')].find((r) => r.textContent.includes('filed-team'))?.textContent ?? ''`,
    );
    assert.match(row, /managed by config/);
    assert.doesNotMatch(row, /Delete/);
    assert.deepEqual(errors, []);
  });
});
