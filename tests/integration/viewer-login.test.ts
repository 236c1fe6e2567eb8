import type { Browser } from 'playwright-core';
import { launchBrowser, newViewerPage, stackDaemon, type ViewerPage } from '../helpers/browser';
import { recur } from '../helpers/run-cli';

// The viewer's sign-in in Debian's Chromium against the stack's daemon: `recur ui`'s link, the cookie it becomes.

let browser: Browser;
const pages: ViewerPage[] = [];
const fresh = async () => {
  const v = await newViewerPage(browser);
  pages.push(v);
  return v;
};

beforeAll(async () => {
  browser = await launchBrowser();
});
afterEach(async () => {
  for (const v of pages.splice(0)) {
    v.expectClean();
    await v.close();
  }
});
afterAll(async () => {
  await browser?.close();
});

async function uiLink(): Promise<string> {
  const r = await recur(['ui', '--no-open']);
  expect(r.code).toBe(0);
  const url = r.lines.at(-1)!;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#login=[A-Za-z0-9_-]{43,}$/);
  return url;
}

describe('signing in to the viewer', () => {
  it("recur ui's link signs the page in: the code leaves the address bar and the cookie is HttpOnly and SameSite=Strict", async () => {
    const v = await fresh();
    const url = await uiLink();
    await v.page.goto(url);
    await v.page.waitForURL((u) => u.hash === '#/');
    await v.byTestId('session-list').waitFor();
    expect(v.page.url()).not.toContain('login=');
    await v.shot('sessions');

    const cookies = await v.context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path])).toEqual([['recur_ui', true, 'Strict', '/']]);
    expect(cookies[0].value).toMatch(/^[0-9a-f]{64}$/);
    expect(await v.page.evaluate('document.cookie')).not.toContain('recur_ui');
  });

  it('a used code signs nobody in: the second page shows the signed-out notice', async () => {
    const url = await uiLink();
    const first = await fresh();
    await first.page.goto(url);
    await first.byTestId('session-list').waitFor();

    const second = await fresh();
    await second.page.goto(url);
    await second.byTestId('signed-out').waitFor();
    expect(await second.byTestId('signed-out').innerText()).toContain('recur ui');
    expect(await second.context.cookies()).toEqual([]);
    await second.shot('signed-out');
  });

  it('a page with no code is signed out, and no page ever holds the daemon token', async () => {
    const { token } = stackDaemon();
    const out = await fresh();
    await out.open('#/');
    await out.byTestId('signed-out').waitFor();

    const signedIn = await fresh();
    await signedIn.page.goto(await uiLink());
    await signedIn.byTestId('session-list').waitFor();
    for (const v of [out, signedIn]) {
      const seen = await v.page.evaluate('document.documentElement.outerHTML + location.href + JSON.stringify(localStorage) + JSON.stringify(sessionStorage)');
      expect(seen).not.toContain(token);
    }
  });
});
