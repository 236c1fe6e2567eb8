import type { Browser } from 'playwright-core';
import type { StoredEvent } from '../../schemas';
import { launchBrowser, signedInPageEach, untilAttribute, untilValue } from '../helpers/browser';
import { BIG_OUTPUT_LINES, FINISHED_TREE, startTree, treeEnded, treeOf } from '../helpers/viewer-trees';

// The timeline, event detail and replay scrubber of a finished tree in Debian's Chromium.

let browser: Browser;
const viewer = signedInPageEach(() => browser);
let id: string;
let events: StoredEvent[];

beforeAll(async () => {
  browser = await launchBrowser();
  id = await startTree(FINISHED_TREE, 'a tree to read');
  await treeEnded(id);
  events = (await treeOf(id)).events;
});
afterAll(async () => {
  await browser?.close();
});

const page = (tab: string, event?: string) => viewer().open(`#/s/${encodeURIComponent(id)}/${tab}${event ? `?e=${encodeURIComponent(event)}` : ''}`);
const timeline = () => viewer().byTestId('timeline');
const renderedIds = () => viewer().byTestId('timeline-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event')));

describe('the timeline', () => {
  it("lists the whole tree's events in causal order, and the root's alone in session scope", async () => {
    await page('timeline');
    await viewer().byTestId('timeline-scope').selectOption('tree');
    await untilAttribute(timeline(), 'data-count', String(events.length));
    const shown = await renderedIds();
    // Virtualised: the rows near the top are in the page, in the tree's order.
    expect(shown.length).toBeGreaterThan(5);
    expect(shown).toEqual(events.slice(0, shown.length).map((e) => e.eventId));
    await viewer().shot('timeline-tree');

    await viewer().byTestId('timeline-scope').selectOption('session');
    await untilAttribute(timeline(), 'data-count', String(events.filter((e) => e.sessionId === id).length));
  });

  it("selecting a cell's row shows its code and output", async () => {
    await page('timeline');
    const cell = events.find((e) => e.type === 'CellExecuted' && e.sessionId === id)!;
    await viewer().page.locator(`[data-testid=timeline-row][data-event="${cell.eventId}"]`).click();
    await untilAttribute(viewer().page.locator(`[data-testid=timeline-row][data-event="${cell.eventId}"]`), 'aria-selected', 'true');
    const detail = viewer().byTestId('event-detail');
    await detail.getByTestId('cell-code').filter({ hasText: 'label = "viewer"' }).waitFor();
    await detail.getByTestId('cell-output').filter({ hasText: 'viewer' }).waitFor();
    await viewer().shot('event-detail');
  });

  it('loads an output too large to log inline from the blob store when asked', async () => {
    const big = events.find((e) => e.type === 'CellExecuted' && (e.event as { outputsBlob: unknown }).outputsBlob)!;
    expect(big).toBeDefined();
    await page('timeline', big.eventId);
    const detail = viewer().byTestId('event-detail');
    await detail.getByTestId('load-blob').first().waitFor();
    expect(await detail.getByTestId('blob-text').count()).toBe(0);
    await detail.getByTestId('load-blob').first().click();
    await detail.getByTestId('blob-text').filter({ hasText: `line ${BIG_OUTPUT_LINES - 1}` }).waitFor();
    await viewer().shot('blob');
  });

  it('moves the selection with j/k and the arrow keys', async () => {
    await page('timeline', events[0].eventId);
    await untilAttribute(viewer().page.locator(`[data-testid=timeline-row][data-event="${events[0].eventId}"]`), 'aria-selected', 'true');
    const root = events.filter((e) => e.sessionId === id).map((e) => e.eventId);
    const scope = await viewer().byTestId('timeline-scope').inputValue();
    const order = scope === 'tree' ? events.map((e) => e.eventId) : root;
    await timeline().focus();
    const expectSelected = async (at: number) => {
      await untilAttribute(viewer().page.locator('[data-testid=timeline-row][aria-selected=true]'), 'data-event', order[at]);
    };
    await viewer().page.keyboard.press('j');
    await expectSelected(1);
    await viewer().page.keyboard.press('j');
    await expectSelected(2);
    await viewer().page.keyboard.press('k');
    await expectSelected(1);
    await viewer().page.keyboard.press('ArrowDown');
    await expectSelected(2);
  });
});

describe('the replay scrubber', () => {
  it('steps through events with the arrow keys and shows the state as of each: children, budget, variables', async () => {
    expect(events.some((e) => e.type === 'KernelSnapshotted' && e.sessionId === id)).toBe(true);
    await page('replay');
    const scrubber = viewer().byTestId('scrubber');
    const position = viewer().byTestId('scrubber-position');
    await scrubber.focus();
    await viewer().page.keyboard.press('Home');
    await position.filter({ hasText: events[0].eventId }).waitFor();
    const startBudget = await viewer().byTestId('replay-budget').innerText();
    expect(await viewer().byTestId('replay-children').innerText()).not.toContain('alpha');
    expect(await viewer().byTestId('replay-variables').innerText()).not.toContain('total');
    await viewer().shot('replay-start');

    await viewer().page.keyboard.press('End');
    await viewer().byTestId('replay-children').filter({ hasText: 'alpha' }).filter({ hasText: 'beta' }).waitFor();
    await viewer().byTestId('replay-variables').filter({ hasText: 'total' }).waitFor();
    expect(await viewer().byTestId('replay-budget').innerText()).not.toBe(startBudget);
    const end = Number(await scrubber.inputValue());
    expect(Number(await scrubber.getAttribute('max'))).toBe(end);
    await viewer().shot('replay-end');

    await viewer().page.keyboard.press('ArrowLeft');
    await untilValue(scrubber, String(end - 1));
    expect(await position.innerText()).not.toBe('');
  });
});

describe('the charts', () => {
  it('draw tokens and cost per agent over time, and cell durations', async () => {
    await page('charts');
    await viewer().byTestId('chart-cost').waitFor();
    await viewer().byTestId('chart-cells').waitFor();
    await viewer().shot('charts');
  });
});
