// The guardrails page in a real browser (Debian's Chromium): the nav entry, the empty state, creating
// a policy with a webhook check (its signing secret shown once), an edit the server refuses (the 400's
// field shown), an edit that lands, and a delete. SQLite only: the REST routes are covered on both
// dialects by api.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import {
  browserSkipReason,
  DESKTOP,
  launch,
  screenshot,
  settled,
  signedInContext,
  waitFor,
  watchErrors,
} from '../ui/helpers/browser.ts';
import { buildUi } from '../ui/helpers/build.ts';

interface Listed {
  data: Array<{ id: string; name: string; mode: string; checks: Array<{ type: string }> }>;
}

describe('guardrails page', { skip: browserSkipReason() }, () => {
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

  test('create, refused edit, edit, delete', async () => {
    const context = await signedInContext(browser, gw.adminKey, 'org', DESKTOP);
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${gw.url}/ui/overview`);
    await settled(page);
    await page.click('nav a:has-text("Guardrails")');
    await settled(page);
    assert.match((await page.locator('main').textContent()) ?? '', /No guardrail policies yet/);

    const create = page.locator('form[aria-label="Create policy"]');
    await create.locator('input[name="name"]').fill('hooked from the UI');
    await create.locator('select[name="mode"]').selectOption('shadow');
    const hook = 'http://127.0.0.1:9/hook';
    await create
      .locator('textarea[name="checks"]')
      .fill(JSON.stringify([{ type: 'webhook', stage: 'input', action: 'block', url: hook, on_error: 'allow' }]));
    await create.locator('button[type="submit"]').click();
    await page.waitForSelector('[data-testid="guardrail"]');
    const secret = await page.locator('[data-testid="secret"] input').inputValue();
    assert.match(secret, /^whsec_/);
    let listed = (await call(gw, 'GET', '/manage/v1/guardrails')).body as Listed;
    assert.deepEqual(
      listed.data.map((g) => [g.name, g.mode, g.checks[0]?.type]),
      [['hooked from the UI', 'shadow', 'webhook']],
    );
    await screenshot(page, 'guardrails');

    const card = page.locator('[data-testid="guardrail"]');
    await card.locator('button:has-text("Edit")').click();
    const edit = card.locator('form');
    await edit
      .locator('textarea[name="checks"]')
      .fill('[{"type":"regex","stage":"input","action":"block","patterns":["("]}]');
    await edit.locator('button[type="submit"]').click();
    await waitFor(page, `document.body.textContent.includes('checks[0].patterns[0]')`);

    await edit.locator('input[name="name"]').fill('renamed in the UI');
    await edit
      .locator('textarea[name="checks"]')
      .fill('[{"type":"keywords","stage":"input","action":"flag","words":["zeus"]}]');
    await edit.locator('button[type="submit"]').click();
    await waitFor(page, `document.body.textContent.includes('renamed in the UI')`);
    listed = (await call(gw, 'GET', '/manage/v1/guardrails')).body as Listed;
    assert.deepEqual(
      listed.data.map((g) => [g.name, g.checks[0]?.type]),
      [['renamed in the UI', 'keywords']],
    );

    await card.locator('button:has-text("Delete")').click();
    await card.locator('button:has-text("Yes, delete")').click();
    await waitFor(page, `document.body.textContent.includes('No guardrail policies yet')`);
    listed = (await call(gw, 'GET', '/manage/v1/guardrails')).body as Listed;
    assert.deepEqual(listed.data, []);
    // The refused edit is a 400 the page shows; the browser logs the failed request, nothing else.
    assert.deepEqual(
      errors.filter((e) => !/status of 400/.test(e)),
      [],
    );
    await context.close();
  });
});
