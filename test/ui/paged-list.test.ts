// The paged list every cursor-paged page shares (components/paged-list.ts), in a real browser on the
// keys page: 50 to a page, Next and Previous walk the cursor trail, and a new filter starts again at
// the first page (a cursor names a place in one listing only).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { api } from '../helpers/proxy-env.ts';
import { browserSkipReason, launch, settled, signedInContext, watchErrors } from './helpers/browser.ts';
import { buildUi } from './helpers/build.ts';

const skip = browserSkipReason();
const KEYS = 53;

describe('paged lists', { skip }, () => {
  let gw: Gateway;
  let browser: Browser;
  /** The keys listed: ours and any the gateway starts with. */
  let total = 0;

  before(async () => {
    buildUi();
    gw = await startGateway();
    for (let i = 0; i < KEYS; i++) {
      const r = await api(gw, 'POST', '/manage/v1/api-keys', { name: `paged-${String(i).padStart(2, '0')}` });
      assert.equal(r.status, 201, JSON.stringify(r.json));
    }
    const listed = await api(gw, 'GET', '/manage/v1/api-keys?limit=200');
    total = (listed.json as { data: unknown[] }).data.length;
    assert.ok(total > 50 && total <= 100, `${total} keys make two pages`);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const rows = (page: Page) => page.locator('[data-testid="keys-table"] tbody tr').count();
  const button = (page: Page, name: string) => page.locator('nav.pager button', { hasText: name });

  test('Next, Previous and Newest walk the pages; a new filter starts at the first', async () => {
    const context = await signedInContext(browser, gw.adminKey, 'org');
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${gw.url}/ui/keys`);
    await settled(page);
    assert.equal(await rows(page), 50);
    assert.equal(await button(page, 'Newest').isDisabled(), true);
    assert.equal(await button(page, 'Previous').isDisabled(), true);

    await button(page, 'Next').click();
    await settled(page);
    assert.equal(await rows(page), total - 50);
    assert.equal(await button(page, 'Next').isDisabled(), true);
    assert.equal(await button(page, 'Previous').isDisabled(), false);

    await button(page, 'Previous').click();
    await settled(page);
    assert.equal(await rows(page), 50);

    await button(page, 'Next').click();
    await settled(page);
    await page.locator('label:has-text("Show revoked") input').check();
    await settled(page);
    assert.equal(await rows(page), 50, 'the new filter shows its first page');
    assert.equal(await button(page, 'Newest').isDisabled(), true);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
