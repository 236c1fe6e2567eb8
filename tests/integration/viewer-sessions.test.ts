import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../config';
import { treeWriter, writeViewerTree } from '../../bench/viewer-tree';
import { launchBrowser, signedInPageEach, untilAttribute, untilCount } from '../helpers/browser';
import { eventsOf, FINISHED_TREE, release, startTree, treeEnded, WAITING_TREE } from '../helpers/viewer-trees';

// The sessions list and the tree view in Debian's Chromium, against the stack's daemon and worker.

const tag = randomBytes(3).toString('hex');
const cheap = `viewer-cost-${tag}-cheap`;
const dear = `viewer-cost-${tag}-dear`;
let browser: Browser;
const viewer = signedInPageEach(() => browser);
let finished: string;
let running: string;

beforeAll(async () => {
  browser = await launchBrowser();
  finished = await startTree(FINISHED_TREE, `finished tree ${tag}`);
  running = await startTree(WAITING_TREE, `running tree ${tag}\nwaits for the user`);
  // Scripted models cost nothing: two trees with priced model calls (written as a worker writes them) to sort by cost.
  const writer = await treeWriter(loadConfig());
  await writeViewerTree(writer.log, cheap, 40, 1, Date.now());
  await writeViewerTree(writer.log, dear, 400, 1, Date.now());
  await writer.close();
  await treeEnded(finished);
});
afterAll(async () => {
  await release(running);
  await treeEnded(running);
  await browser?.close();
});

const row = (id: string) => viewer().page.locator(`[data-testid=session-row][data-session="${id}"]`);
const rowIds = () => viewer().byTestId('session-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session')));
const rowCount = (n: number) => untilCount(viewer().byTestId('session-row'), n);

describe('the sessions list', () => {
  it('shows a finished tree and a running one with their status', async () => {
    await untilAttribute(row(finished), 'data-status', 'completed');
    await untilAttribute(row(running), 'data-status', 'running');
    // The task comes from the catalog, which folds the log as it grows.
    await row(finished).filter({ hasText: `finished tree ${tag}` }).waitFor();
    await row(running).filter({ hasText: `running tree ${tag}` }).waitFor();
    // The first line of the task only.
    expect(await row(running).innerText()).not.toContain('waits for the user');
    await viewer().shot('list');
  });

  it('narrows to what the search and the status filter match: id, task text, status', async () => {
    const search = viewer().byTestId('session-search');
    await search.fill(finished);
    await rowCount(1);
    expect(await rowIds()).toEqual([finished]);
    await search.fill(`RUNNING TREE ${tag}`);
    await rowCount(1);
    expect(await rowIds()).toEqual([running]);
    await search.fill(`viewer-cost-${tag}`);
    await rowCount(2);
    await search.fill(`tree ${tag}`);
    await rowCount(2);
    await viewer().byTestId('status-filter').selectOption('running');
    await rowCount(1);
    expect(await rowIds()).toEqual([running]);
    await viewer().byTestId('status-filter').selectOption('all');
    await search.fill('');
    await row(finished).waitFor();
    await row(running).waitFor();
  });

  it('sorts by cost both ways', async () => {
    await viewer().byTestId('session-search').fill(`viewer-cost-${tag}`);
    await rowCount(2);
    const header = viewer().page.locator('th', { has: viewer().byTestId('sort-cost') });
    await viewer().byTestId('sort-cost').click();
    const first = await header.getAttribute('aria-sort');
    expect(['ascending', 'descending']).toContain(first);
    expect(await rowIds()).toEqual(first === 'ascending' ? [cheap, dear] : [dear, cheap]);
    await viewer().byTestId('sort-cost').click();
    await untilAttribute(header, 'aria-sort', first === 'ascending' ? 'descending' : 'ascending');
    expect(await rowIds()).toEqual(first === 'ascending' ? [dear, cheap] : [cheap, dear]);
    expect(await row(dear).innerText()).toMatch(/\$0\.\d{4}/);
    await viewer().shot('list-by-cost');
  });

  it('is driven by the keyboard: Tab to the list, the arrows move the selected row, Enter opens it', async () => {
    await viewer().byTestId('session-search').fill(`tree ${tag}`);
    await rowCount(2);
    const [top, next] = await rowIds();
    const inRows = `document.querySelector('[data-testid=session-list] tbody')?.contains(document.activeElement) ?? false`;
    for (let presses = 0; presses < 12 && !(await viewer().page.evaluate(inRows)); presses++) await viewer().page.keyboard.press('Tab');
    expect(await viewer().page.evaluate(inRows)).toBe(true);
    await viewer().page.keyboard.press('ArrowDown');
    await untilAttribute(row(top!), 'aria-selected', 'true');
    await viewer().page.keyboard.press('ArrowUp');
    // Keys as fast as a user's: each moves on from the one before, rendered or not.
    await viewer().page.keyboard.press('ArrowDown');
    await viewer().page.keyboard.press('ArrowDown');
    await untilAttribute(row(next!), 'aria-selected', 'true');
    await viewer().page.keyboard.press('ArrowUp');
    await untilAttribute(row(top!), 'aria-selected', 'true');
    await viewer().page.keyboard.press('ArrowDown');
    await untilAttribute(row(next!), 'aria-selected', 'true');
    await viewer().page.keyboard.press('Enter');
    await viewer().byTestId('timeline').waitFor();
    expect(decodeURIComponent(new URL(viewer().page.url()).hash)).toMatch(new RegExp(`^#/s/${next}(/timeline)?$`));
  });
});

describe('the tree view', () => {
  const node = (id: string) => viewer().page.locator(`[data-testid=tree-node][data-session="${id}"]`);

  it('shows the root and its children with status, cost and turns; a node opens its timeline', async () => {
    await viewer().open(`#/s/${encodeURIComponent(finished)}/tree`);
    for (const id of [finished, `${finished}/alpha`, `${finished}/beta`]) {
      await untilAttribute(node(id), 'data-status', 'completed');
      const turns = (await eventsOf(finished, 'ModelCalled')).filter((e) => e.sessionId === id).length;
      const text = await node(id).innerText();
      expect(text).toMatch(/\$\d+\.\d+/);
      expect(text).toContain(`${turns} turns`);
    }
    expect(await node(`${finished}/alpha`).innerText()).toContain('alpha');
    await viewer().shot('tree');
    await node(`${finished}/alpha`).click();
    await viewer().byTestId('timeline').waitFor();
    expect(decodeURIComponent(new URL(viewer().page.url()).hash)).toMatch(new RegExp(`^#/s/${finished}/alpha(/timeline)?`));
  });
});
