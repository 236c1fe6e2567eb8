import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium, viewerLoginUrl } from '../../bench/chromium';
import { loadConfig } from '../../config';
import { repoRoot } from '../../services/home/repo-root';
import { connectDaemon, type DaemonClient } from '../../services/cli/daemon-client';

export const SCREENSHOTS = join(repoRoot(), 'reports', 'screenshots');

/** The integration stack's daemon (the one `up` started), with its bearer token: the tests' side, never the page's. */
export const stackDaemon = (): DaemonClient => connectDaemon(loadConfig());

export const launchBrowser = (): Promise<Browser> => launchChromium(loadConfig());

/** A page of its own (own cookie jar) that records every CSP violation and uncaught error it sees. */
export interface ViewerPage {
  page: Page;
  context: BrowserContext;
  /** CSP violations and page errors so far; `expectClean()` fails the test on any. */
  problems: string[];
  byTestId(id: string): Locator;
  /** Opens a hash route of the viewer (`#/`, `#/s/<id>/timeline`, …) on the daemon's origin. */
  open(route: string): Promise<void>;
  /** Writes reports/screenshots/<test>-<view>.png. */
  shot(view: string): Promise<void>;
  expectClean(): void;
  close(): Promise<void>;
}

export async function newViewerPage(browser: Browser, daemon: DaemonClient = stackDaemon()): Promise<ViewerPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  // The binding and the listener come from the browser, not the page, so the CSP under test does not block them.
  await page.exposeFunction('recurTestCspViolation', (text: string) => problems.push(`CSP violation: ${text}`));
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
    window.recurTestCspViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' in ' + e.sourceFile + ':' + e.lineNumber));`);
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return {
    page, context, problems,
    byTestId: (id) => page.getByTestId(id),
    async open(route) {
      await page.goto(`${daemon.url}/ui/${route}`);
    },
    async shot(view) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      // The test's name, cut at a word: a file name, not a sentence.
      const slug = (expect.getState().currentTestName ?? 'test').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
      const test = slug.length <= 60 ? slug : slug.slice(0, 61).replace(/-[^-]*$/, '');
      await page.screenshot({ path: join(SCREENSHOTS, `${test}-${view}.png`), fullPage: true });
    },
    expectClean() {
      expect(problems).toEqual([]);
    },
    close: () => context.close(),
  };
}

/** Signs the page in as `recur ui`'s link does: a fresh code in the fragment, exchanged by the page for its cookie. */
export async function signIn(viewer: ViewerPage, daemon: DaemonClient = stackDaemon()): Promise<void> {
  await viewer.page.goto(await viewerLoginUrl(daemon));
  await viewer.page.waitForURL((url) => url.hash === '#/');
  await viewer.byTestId('session-list').waitFor();
}

/**
 * A signed-in page for each test of the file, closed after it; a test fails on any CSP violation
 * or page error its page saw. Returns the current test's page.
 */
export function signedInPageEach(browser: () => Browser): () => ViewerPage {
  let page: ViewerPage | undefined;
  beforeEach(async () => {
    page = await newViewerPage(browser());
    await signIn(page);
  });
  afterEach(async () => {
    page?.expectClean();
    await page?.close();
  });
  return () => page!;
}

// Waits below are Playwright's own (locators, URL): a condition given to the page as a string is
// eval'd there, which the viewer's CSP refuses, as it should.

/** Waits until the locator matches exactly `n` elements. */
export async function untilCount(locator: Locator, n: number): Promise<void> {
  if (n > 0) await locator.nth(n - 1).waitFor({ state: 'attached' });
  await locator.nth(n).waitFor({ state: 'detached' });
}

/** Waits until an input's current value (the property, which the attribute does not follow) is `value`. */
export async function untilValue(locator: Locator, value: string): Promise<void> {
  await locator.page().waitForFunction(([input, want]) => (input as { value: string }).value === want, [await locator.elementHandle(), value] as const);
}

/** Waits until the element's attribute has the value (Playwright re-reads the DOM until it does or its timeout ends). */
export async function untilAttribute(locator: Locator, name: string, value: string): Promise<void> {
  await locator.and(locator.page().locator(`[${name}="${value.replace(/["\\]/g, '\\$&')}"]`)).first().waitFor();
}
