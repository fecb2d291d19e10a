// A routing-config update made in the dashboard, in a real browser (Debian's Chromium), lands in the
// audit log with the dashboard's key as actor and the browser's user agent; the audit page lists it,
// opens it to before/after and verifies the chain. SQLite only: the door is the same REST route the
// other tests cover on both dialects.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import {
  browserSkipReason,
  DESKTOP,
  launch,
  settled,
  signedInContext,
  waitFor,
  watchErrors,
} from '../ui/helpers/browser.ts';
import { buildUi } from '../ui/helpers/build.ts';

interface Entry {
  id: string;
  action: string;
  actor: { type: string; id: string; name: string | null };
  before: { name?: string; version?: number } | null;
  after: { name?: string; version?: number } | null;
  user_agent: string | null;
}

describe('audit log from the dashboard', { skip: browserSkipReason() }, () => {
  let gw: Gateway;
  let browser: Browser;
  before(async () => {
    buildUi();
    gw = await startGateway();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('a config saved in the editor is audited and shown on the audit page', async () => {
    const key = await call(gw, 'POST', '/manage/v1/api-keys', { name: 'dashboard person' });
    assert.equal(key.status, 201, key.text);
    const dash = key.body as { id: string; key: string };
    const created = await call(gw, 'POST', '/manage/v1/routing-configs', {
      name: 'Before UI',
      slug: 'ui-audited',
      strategy: 'single',
      config: { model: 'openai/gpt-4o-mini' },
    });
    assert.equal(created.status, 201, created.text);
    const configId = (created.body as { id: string }).id;

    const context = await signedInContext(browser, dash.key, 'org', DESKTOP);
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${gw.url}/ui/configs/${configId}`);
    await settled(page);
    const editor = page.locator('#config-json');
    await editor.fill((await editor.inputValue()).replace('"Before UI"', '"After UI"'));
    await page.click('button:has-text("Save new version")');
    await page.waitForSelector('[data-testid="versions-table"] tbody tr:nth-child(2)');

    const listed = await call(gw, 'GET', `/manage/v1/audit-logs?action=routing_config.update&resource_id=${configId}`);
    const [entry] = (listed.body as { data: Entry[] }).data;
    assert.ok(entry, listed.text);
    assert.deepEqual(
      [entry.actor, entry.before?.name, entry.after?.name, entry.before?.version, entry.after?.version],
      [{ type: 'api_key', id: dash.id, name: 'dashboard person' }, 'Before UI', 'After UI', 1, 2],
    );
    assert.match(entry.user_agent ?? '', /Chrome/);

    await page.goto(`${gw.url}/ui/audit`);
    await settled(page);
    const row = page.locator(`[data-testid="audit-entries"] li:has-text("routing_config.update")`);
    assert.match((await row.textContent()) ?? '', /dashboard person/);
    await row.locator('button.row-toggle').click();
    await page.waitForSelector('[data-testid="audit-detail"]');
    assert.match((await page.locator('[data-testid="audit-detail"]').textContent()) ?? '', /After UI/);
    await page.click('button:has-text("Verify the chain")');
    await waitFor(page, `document.body.textContent.includes('Intact')`);
    const [file] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Export NDJSON")')]);
    const lines = readFileSync(await file.path(), 'utf8')
      .trim()
      .split('\n');
    assert.ok(lines.some((l) => (JSON.parse(l) as Entry).id === entry.id));
    assert.deepEqual(errors, []);
    await context.close();
  });
});
