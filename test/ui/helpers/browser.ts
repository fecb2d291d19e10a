// A real browser for the dashboard tests: Debian's Chromium driven by playwright-core. Locally a
// machine without it skips the browser tests with the reason; in CI (CI=true) a missing browser is
// a failure, never a silent skip.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const repo = fileURLToPath(new URL('../../..', import.meta.url));
export const SCREENSHOTS = join(repo, 'test-results', 'ui');

/** Why the browser tests cannot run here, or undefined when they can. Throws in CI. */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = `${CHROMIUM} is missing (apt-get install chromium)`;
  if (process.env.CI === 'true') throw new Error(`the dashboard browser tests need ${why}`);
  return why;
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

const pending = new WeakMap<Page, Set<string>>();

/** Console errors and uncaught page errors, to assert a page loaded cleanly. */
export function watchErrors(page: Page): string[] {
  const inFlight = new Set<string>();
  pending.set(page, inFlight);
  page.on('request', (r) => inFlight.add(`${r.method()} ${r.url()}`));
  page.on('requestfinished', (r) => inFlight.delete(`${r.method()} ${r.url()}`));
  page.on('requestfailed', (r) => inFlight.delete(`${r.method()} ${r.url()}`));
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return errors;
}

/** A context already signed in (the session the sign-in form would have stored). */
export async function signedInContext(
  browser: Browser,
  key: string,
  scope: 'org' | 'project',
  viewport = DESKTOP,
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  const session = JSON.stringify(JSON.stringify({ key, scope }));
  await context.addInitScript(
    `if (!sessionStorage.getItem('switchyard.session')) sessionStorage.setItem('switchyard.session', ${session});`,
  );
  return context;
}

/**
 * Waits until the page has loaded: its heading shown, no request in flight (main[aria-busy]) and
 * no section still showing its "Loading…" placeholder (a request about to start).
 */
export async function settled(page: Page, timeout = 15_000): Promise<void> {
  try {
    await waitFor(
      page,
      `(() => {
        const main = document.querySelector('main');
        return main !== null && main.getAttribute('aria-busy') === 'false' && main.querySelector('h1') !== null &&
          main.querySelector('.loading') === null;
      })()`,
      timeout,
    );
  } catch (err) {
    // Say which page and which part of it never finished.
    const state = await inPage<string>(
      page,
      `JSON.stringify({ busy: document.querySelector('main')?.getAttribute('aria-busy'),
        loading: [...document.querySelectorAll('main .loading')].map((e) => e.textContent) })`,
    );
    const requests = [...(pending.get(page) ?? [])].join(', ');
    throw new Error(`${page.url()} did not settle: ${state}; requests in flight: ${requests || 'none'}`, {
      cause: err,
    });
  }
}

/**
 * Polls an expression until it is truthy. Not page.waitForFunction: that evaluates its predicate
 * with eval inside the page, which the dashboard's Content-Security-Policy (rightly) forbids.
 */
export async function waitFor(page: Page, expression: string, timeout = 15_000): Promise<void> {
  const until = Date.now() + timeout;
  for (;;) {
    if (await inPage<boolean>(page, `Boolean(${expression})`)) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeout} ms waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs an expression in the page. Page code is passed as text: the tests are type-checked without
 * the DOM library, and their transpiler would wrap named functions in a helper the page lacks.
 */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
