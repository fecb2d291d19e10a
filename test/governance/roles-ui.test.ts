// The dashboard's keys page and roles, in a real browser: a key is created with a role from the form,
// the table shows each key's role, changing it there is saved, and a change the API refuses (a
// developer promoting a key to admin) is shown and leaves the stored role alone. A viewer sees the
// keys and a routing config without any control that would change them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { browserSkipReason, launch, settled, signedInContext, watchErrors } from '../ui/helpers/browser.ts';
import { buildUi } from '../ui/helpers/build.ts';

type Json = Record<string, unknown>;
const skip = browserSkipReason();
let gw: Gateway;
let browser: Browser;

/** The keys page signed in with `key`; `role` is what the sign-in page would have read from /me. */
async function keysPage(key: string, role?: string): Promise<{ page: Page; errors: string[] }> {
  const context = await signedInContext(browser, key, 'org');
  if (role !== undefined)
    await context.addInitScript(
      `sessionStorage.setItem('switchyard.session', ${JSON.stringify(JSON.stringify({ key, scope: 'org', role }))});`,
    );
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${gw.url}/ui/keys`);
  await settled(page);
  return { page, errors };
}

async function storedRole(name: string): Promise<unknown> {
  const list = (await call(gw, 'GET', '/manage/v1/api-keys?limit=200')).body as { data: Json[] };
  return list.data.find((k) => k.name === name)?.role;
}

describe('keys page roles in a real browser', { skip }, () => {
  before(async () => {
    buildUi();
    gw = await startGateway();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('create with a role, see it listed, change it', async () => {
    const { page, errors } = await keysPage(gw.adminKey);
    const form = 'form[aria-label="Create an API key"]';
    await page.fill(`${form} input[name="name"]`, 'ui viewer');
    await page.selectOption(`${form} select[name="role"]`, 'viewer');
    await page.click('button:has-text("Create key")');
    await page.click('button:has-text("I have stored it")');
    assert.equal(await storedRole('ui viewer'), 'viewer');

    const select = page.locator('select[aria-label="Role of ui viewer"]');
    assert.equal(await select.inputValue(), 'viewer');
    await select.selectOption('developer');
    await page.locator('select[aria-label="Role of ui viewer"]:enabled').waitFor();
    await settled(page);
    assert.equal(await storedRole('ui viewer'), 'developer');
    assert.deepEqual(errors, []);
  });

  test('a refused change shows the API error and keeps the stored role', async () => {
    const dev = await call(gw, 'POST', '/manage/v1/api-keys', { name: 'ui dev', role: 'developer' });
    const target = await call(gw, 'POST', '/manage/v1/api-keys', { name: 'ui target', role: 'inference' });
    assert.equal(target.status, 201);
    const { page } = await keysPage((dev.body as { key: string }).key);
    await page.locator('select[aria-label="Role of ui target"]').selectOption('admin');
    await page.locator('.error:has-text("The role was not changed")').waitFor();
    assert.match((await page.locator('.error').first().textContent()) ?? '', /admin/);
    assert.equal(await storedRole('ui target'), 'inference');
  });

  test('a viewer sees keys and a routing config without their write controls', async () => {
    const viewer = await call(gw, 'POST', '/manage/v1/api-keys', { name: 'ui reader', role: 'viewer' });
    const created = await call(gw, 'POST', '/manage/v1/routing-configs', {
      name: 'Read only',
      strategy: 'single',
      config: { model: 'openai/gpt-4o-mini' },
    });
    assert.equal(created.status, 201, created.text);
    const configId = (created.body as Json).id as string;
    const renamed = await call(gw, 'PATCH', `/manage/v1/routing-configs/${configId}`, { name: 'Read only v2' });
    assert.equal(renamed.status, 200, renamed.text);

    // The same pages as an admin show the controls, so their absence below is the role's doing.
    const writable = async (key: string, role: string) => {
      const { page, errors } = await keysPage(key, role);
      const keys = {
        create: await page.locator('form[aria-label="Create an API key"]').count(),
        roleSelects: await page.locator('select[aria-label^="Role of"]').count(),
        rotate: await page.locator('button:has-text("Rotate")').count(),
        revoke: await page.locator('button:has-text("Revoke")').count(),
        listed: await page.locator('[data-testid="keys-table"] td:has-text("ui reader")').count(),
      };
      await page.goto(`${gw.url}/ui/configs/${configId}`);
      await settled(page);
      const config = {
        editor: await page.locator('form[aria-label="Routing config definition"]').count(),
        readOnly: await page.locator('pre[aria-label="Routing config definition (read-only)"]').count(),
        remove: await page.locator('button:has-text("Delete config")').count(),
        restore: await page.locator('button:has-text("Restore v1")').count(),
        playground: await page.locator('[data-testid="playground"]').count(),
      };
      await page.goto(`${gw.url}/ui/configs`);
      await settled(page);
      const newLink = await page.locator('a:has-text("New routing config")').count();
      return { keys, config, newLink, errors };
    };
    const asAdmin = await writable(gw.adminKey, 'admin');
    assert.equal(asAdmin.keys.create, 1);
    assert.equal(asAdmin.keys.listed, 1);
    assert.ok(asAdmin.keys.roleSelects > 0 && asAdmin.keys.rotate > 0 && asAdmin.keys.revoke > 0, 'admin controls');
    assert.deepEqual(asAdmin.config, { editor: 1, readOnly: 0, remove: 1, restore: 1, playground: 1 });
    assert.equal(asAdmin.newLink, 1);

    const asViewer = await writable((viewer.body as { key: string }).key, 'viewer');
    assert.deepEqual(asViewer.keys, { create: 0, roleSelects: 0, rotate: 0, revoke: 0, listed: 1 });
    assert.deepEqual(asViewer.config, { editor: 0, readOnly: 1, remove: 0, restore: 0, playground: 0 });
    assert.equal(asViewer.newLink, 0);
    assert.deepEqual(asViewer.errors, []);
  });
});
