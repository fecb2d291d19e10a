// Single sign-on against a real OpenID provider (oidc-provider, started here) in Chromium: sign in
// through the provider's login page, land on the dashboard with the mapped role, a viewer sees no
// edit controls and the API refuses its writes, sign-out ends the session, and a deactivation made on
// a second instance (same PostgreSQL store) ends the session on the first. Users show at
// /manage/v1/users; their writes are audited as `user`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { OidcConfig } from '../../src/config.ts';
import { mapClaims } from '../../src/http/sso-claims.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { browserSkipReason, DESKTOP, inPage, launch, screenshot, settled, waitFor } from '../ui/helpers/browser.ts';
import { buildUi } from '../ui/helpers/build.ts';
import { CLIENT_ID, CLIENT_SECRET, startProvider, type TestProvider } from './sso-provider.ts';

const ROLE_MAP = { 'sy-admins': 'admin', 'sy-readers': 'viewer' } as const;

test('claims map to the most powerful role any group gives; no mapped group refuses', () => {
  const oidc = { roleClaim: 'groups', roleMap: { ...ROLE_MAP }, projectClaim: 'sy_project' };
  assert.deepEqual(mapClaims({ groups: ['sy-readers', 'sy-admins'], sy_project: 'default' }, oidc), {
    ok: true,
    role: 'admin',
    projectRef: 'default',
  });
  assert.deepEqual(mapClaims({ groups: 'sy-readers' }, oidc), { ok: true, role: 'viewer', projectRef: null });
  const refused = mapClaims({ groups: ['staff'] }, oidc);
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.message, /'groups' claim/);
  // A claim value that only looks like an object key maps to nothing.
  assert.equal(mapClaims({ groups: ['__proto__', 'constructor'] }, oidc).ok, false);
});

const skip = browserSkipReason();

describe('single sign-on in a real browser', { skip }, () => {
  let provider: TestProvider;
  let a: Gateway;
  let b: Gateway;
  let browser: Browser;

  before(async () => {
    buildUi();
    provider = await startProvider({
      ada: { name: 'Ada Admin', email: 'ada@example.test', groups: ['sy-readers', 'sy-admins'] },
      vic: { name: 'Vic Viewer', email: 'vic@example.test', groups: ['sy-readers'] },
      eve: { name: 'Eve Elsewhere', email: 'eve@example.test', groups: ['staff'] },
    });
    const oidc: OidcConfig = {
      issuer: provider.issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      roleClaim: 'groups',
      roleMap: { ...ROLE_MAP },
      projectClaim: null,
      redirectUrl: null,
      sessionTtlMs: 3_600_000,
    };
    // Two instances on one store share its master key, as a real deployment's would.
    const masterKey = randomBytes(32).toString('base64');
    a = await startGateway({ postgres: true, config: { oidc, masterKey } });
    // A second instance on the same store: what it changes must reach sessions held by the first.
    b = await startGateway({ postgres: true, pgSchema: a.pgSchema ?? undefined, config: { oidc, masterKey } });
    provider.register(`${a.url}/sso/callback`);
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await b?.close();
    await a?.close();
    await provider?.close();
  });

  /** Signs in through the provider's own login page; returns the page back on the dashboard. */
  async function signInAs(login: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${a.url}/ui/overview`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL(`${provider.issuer}/**`);
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any password');
    await page.click('button[type=submit]');
    // The provider asks once to let the dashboard see the account.
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${a.url}/ui/**`);
    return { context, page };
  }

  async function sessionCookie(context: BrowserContext): Promise<{ cookie: string; csrf: string }> {
    const jar = await context.cookies(a.url);
    const session = jar.find((c) => c.name === 'sy_session');
    const csrf = jar.find((c) => c.name === 'sy_csrf');
    assert.ok(session && csrf, 'the callback set the session and CSRF cookies');
    assert.equal(session.httpOnly, true, 'the session cookie is HttpOnly');
    assert.equal(csrf.httpOnly, false, 'the CSRF cookie is readable by the dashboard');
    return { cookie: `sy_session=${session.value}`, csrf: csrf.value };
  }

  /** A management call as the browser's session would make it, from outside the browser. */
  async function asSession(
    gw: Gateway,
    s: { cookie: string; csrf?: string },
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: { error?: { code?: string } } & Record<string, unknown> }> {
    const res = await fetch(`${gw.url}${path}`, {
      method,
      headers: {
        cookie: s.cookie,
        ...(s.csrf !== undefined ? { 'x-csrf-token': s.csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error?: { code?: string } } & Record<string, unknown> };
  }

  test('an admin signs in through the provider and lands on the dashboard as admin', async () => {
    const { context, page } = await signInAs('ada');
    await settled(page);
    assert.equal(new URL(page.url()).pathname, '/ui/overview');
    const badge = (await page.locator('header .scope').textContent()) ?? '';
    assert.match(badge, /Ada Admin/);
    assert.match(badge, /admin/);
    await screenshot(page, 'sso-admin-overview');

    const me = await inPage<{ actor: { type: string; email: string }; role: string }>(
      page,
      `fetch('/manage/v1/me').then((r) => r.json())`,
    );
    assert.equal(me.actor.type, 'user');
    assert.equal(me.actor.email, 'ada@example.test');
    assert.equal(me.role, 'admin');

    // The user appeared on first sign-in; the dashboard's own writes work and are audited as hers.
    const users = (await call(a, 'GET', '/manage/v1/users')).body as { data: Array<{ email: string; role: string }> };
    assert.deepEqual(
      users.data.map((u) => [u.email, u.role]),
      [['ada@example.test', 'admin']],
    );
    const s = await sessionCookie(context);
    const created = await asSession(a, s, 'POST', '/manage/v1/projects', { name: 'Made by Ada' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const audit = (await call(a, 'GET', `/manage/v1/audit-logs?resource_id=${created.body.id}`)).body as {
      data: Array<{ action: string; actor: { type: string; name: string } }>;
    };
    assert.deepEqual(
      audit.data.map((e) => [e.action, e.actor.type, e.actor.name]),
      [['project.create', 'user', 'Ada Admin']],
    );
    await context.close();
  });

  test('a viewer sees no edit controls and the API refuses its writes', async () => {
    const { context, page } = await signInAs('vic');
    await settled(page);
    assert.match((await page.locator('header .scope').textContent()) ?? '', /viewer/);
    await page.goto(`${a.url}/ui/projects`);
    await settled(page);
    // The page reads (the project list shows) but offers nothing to change.
    assert.ok((await page.locator('main table').count()) > 0, 'the project list is shown');
    assert.equal(await page.getByRole('button', { name: 'Create project' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0);
    await page.goto(`${a.url}/ui/configs`);
    await settled(page);
    assert.equal(await page.getByRole('link', { name: 'New routing config' }).count(), 0);
    await screenshot(page, 'sso-viewer-configs');

    // Through the browser's own session: reads answer, a write is refused for the role.
    const read = await inPage<number>(page, `fetch('/manage/v1/logs?limit=1').then((r) => r.status)`);
    assert.equal(read, 200);
    const s = await sessionCookie(context);
    const write = await asSession(a, s, 'POST', '/manage/v1/projects', { name: 'Not allowed' });
    assert.equal(write.status, 403);
    assert.equal(write.body.error?.code, 'insufficient_role');
    // A write without the CSRF token is refused before the role is even looked at.
    const forged = await asSession(a, { cookie: s.cookie }, 'POST', '/manage/v1/projects', { name: 'Forged' });
    assert.equal(forged.status, 403);
    assert.equal(forged.body.error?.code, 'csrf_token_invalid');
    // Model calls take API keys only.
    const proxy = await fetch(`${a.url}/alpha/v1/chat/completions`, { method: 'POST', headers: { cookie: s.cookie } });
    assert.equal(proxy.status, 401);
    await context.close();
  });

  test('sign-out ends the session at the gateway, not only in the tab', async () => {
    const { context, page } = await signInAs('vic');
    await settled(page);
    const s = await sessionCookie(context);
    assert.equal((await asSession(a, s, 'GET', '/manage/v1/me')).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    const after = await asSession(a, s, 'GET', '/manage/v1/me');
    assert.equal(after.status, 401);
    assert.equal(after.body.error?.code, 'session_ended');
    await context.close();
  });

  test('deactivating a user on one instance ends its session on the other; sign-in is then refused', async () => {
    const { context, page } = await signInAs('vic');
    await settled(page);
    const s = await sessionCookie(context);
    const users = (await call(b, 'GET', '/manage/v1/users')).body as { data: Array<{ id: string; email: string }> };
    const vic = users.data.find((u) => u.email === 'vic@example.test');
    assert.ok(vic);
    const changed = await call(b, 'PATCH', `/manage/v1/users/${vic.id}`, { active: false });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((changed.body as { active: boolean }).active, false);

    // Instance A may act on what it looked up for up to a second; poll (bounded) until it refuses.
    let status = 0;
    for (let i = 0; i < 100 && status !== 401; i++) {
      status = (await asSession(a, s, 'GET', '/manage/v1/me')).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 401);
    // The open dashboard notices on its next call and goes back to the sign-in page.
    await page.goto(`${a.url}/ui/logs`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    await context.close();

    // Signing in again is refused with the reason, shown on the sign-in page.
    const again = await browser.newContext({ viewport: DESKTOP });
    const p2 = await again.newPage();
    await p2.goto(`${a.url}/ui/overview`);
    await p2.getByRole('link', { name: 'Sign in with SSO' }).click();
    await p2.waitForURL(`${provider.issuer}/**`);
    await p2.fill('input[name=login]', 'vic');
    await p2.fill('input[name=password]', 'x');
    await p2.click('button[type=submit]');
    await p2.getByRole('button', { name: 'Continue' }).click();
    await p2.waitForURL(`${a.url}/ui/signin**`);
    await waitFor(p2, `document.body.textContent.includes('deactivated')`);
    await again.close();

    // The change is audited with the admin key as its actor.
    const audit = (await call(b, 'GET', `/manage/v1/audit-logs?resource_id=${vic.id}`)).body as {
      data: Array<{ action: string; actor: { type: string }; before: { active: boolean }; after: { active: boolean } }>;
    };
    assert.deepEqual(
      audit.data.map((e) => [e.action, e.actor.type, e.before.active, e.after.active]),
      [['user.update', 'api_key', true, false]],
    );
  });

  test('someone the role map does not cover is refused with the reason', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${a.url}/ui/overview`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL(`${provider.issuer}/**`);
    await page.fill('input[name=login]', 'eve');
    await page.fill('input[name=password]', 'x');
    await page.click('button[type=submit]');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${a.url}/ui/signin**`);
    await waitFor(page, `document.body.textContent.includes("'groups' claim")`);
    const users = (await call(a, 'GET', '/manage/v1/users')).body as { data: Array<{ email: string }> };
    assert.ok(!users.data.some((u) => u.email === 'eve@example.test'), 'a refused sign-in records no user');
    await context.close();
  });
});
