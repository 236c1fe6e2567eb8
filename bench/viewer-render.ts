import type { Browser } from 'playwright-core';
import { connectDaemon } from '../services/cli/daemon-client';
import { newSessionId } from './bench-worker';
import { size, type Benchmark } from './benchmark';
import { launchChromium, viewerLoginUrl } from './chromium';
import { compare, type BenchResult } from './report';
import { summarize } from './stats';
import { treeWriter, writeViewerTree } from './viewer-tree';

/** One page load of a tree's timeline, on the page's clock from navigation start. */
export interface RenderSample {
  /** Until its first row showed with the whole tree counted. */
  ms: number;
  /** Until the daemon's tree reply had arrived (the rest of `ms` is the page's own work). */
  treeMs: number;
  /** The JS heap then, after a garbage collection. */
  heapMB: number;
}

const TARGET_MS = 2000;

/** The little of the DOM the condition below reads (the bench compiles without the DOM's types). */
interface PageNode {
  querySelector(selector: string): PageNode | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { height: number };
}

/**
 * The page's clock (ms since navigation started) once the timeline counts every event of the
 * tree and its first row is laid out, else false. Run in the page every animation frame: a
 * function, since the viewer's CSP refuses a condition given as a string to eval.
 */
export function renderedAt([root, count]: readonly [PageNode, number]): number | false {
  const timeline = root.querySelector('[data-testid=timeline]');
  const row = timeline?.getAttribute('data-count') === String(count) ? timeline.querySelector('[data-testid=timeline-row]') : null;
  return row && row.getBoundingClientRect().height > 0 ? performance.now() : false;
}

/** A fresh page (signed in), a full load of the tree's timeline, the time to the whole tree shown and the heap after a GC. */
async function renderOnce(browser: Browser, daemon: { url: string; token: string }, root: string, count: number): Promise<RenderSample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(await viewerLoginUrl(daemon));
    await page.waitForURL((url) => url.hash === '#/');
    await page.goto('about:blank');
    await page.goto(`${daemon.url}/ui/#/s/${encodeURIComponent(root)}/timeline`);
    const scope = page.getByTestId('timeline-scope');
    // The whole tree is the figure: switched to when the page opens on the root's own events.
    await scope.waitFor({ timeout: 120_000 });
    if ((await scope.inputValue()) !== 'tree') await scope.selectOption('tree');
    const html = await page.locator('html').elementHandle();
    const ms = (await (await page.waitForFunction(renderedAt, [html, count] as const, { polling: 'raf', timeout: 120_000 })).jsonValue()) as number;
    const treeMs = await page.evaluate((path) => {
      const reply = performance.getEntriesByType('resource').find((e) => e.name.includes(path)) as { responseEnd: number } | undefined;
      return reply?.responseEnd ?? NaN;
    }, `/v1/sessions/${encodeURIComponent(root)}/tree`);
    const cdp = await context.newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
    // The page's verification reads the whole topic on the daemon; the next sample must not share the daemon with it.
    await page.locator('[data-testid=verify-badge]:not([data-state=pending])').waitFor({ timeout: 300_000 });
    return { ms, treeMs, heapMB: heap / 2 ** 20 };
  } finally {
    await context.close();
  }
}

/** The figures of a run: the large tree against the small one, both loaded the same way in the same browser. */
export function viewerResults(events: { large: number; small: number }, large: RenderSample[], small: RenderSample[]): BenchResult[] {
  const limits = 'one Node daemon reading the tree from Kafka and sending it as JSON, then Chromium parsing it, ordering it and rendering the rows in view';
  const { median } = summarize(large.map((s) => s.ms));
  const inPage = summarize(large.map((s) => s.ms - s.treeMs)).median;
  return [
    compare({
      name: 'viewer-render/first-render', title: `Viewer: load of a ${events.large / 1000}k-event tree to its timeline shown (target ≤ ${TARGET_MS} ms)`,
      unit: 'ms', better: 'lower',
      subject: { label: `${events.large} events`, samples: large.map((s) => s.ms) },
      baseline: { label: `${events.small} events`, samples: small.map((s) => s.ms) },
      limits, details: { targetMs: TARGET_MS, withinTarget: median <= TARGET_MS, inPageMedianMs: Math.round(inPage) },
    }),
    compare({
      name: 'viewer-render/tree-reply', title: `Viewer: the daemon's reply to GET /v1/sessions/:id/tree of a ${events.large / 1000}k-event tree, as the page saw it arrive`,
      unit: 'ms', better: 'lower',
      subject: { label: `${events.large} events`, samples: large.map((s) => s.treeMs) },
      baseline: { label: `${events.small} events`, samples: small.map((s) => s.treeMs) },
      limits: 'the daemon reading the tree from Kafka (from its offset-index entry), ordering it and writing it as one JSON body',
    }),
    compare({
      name: 'viewer-render/heap', title: `Viewer: page JS heap with a ${events.large / 1000}k-event tree loaded (after a GC)`,
      unit: 'MB', better: 'lower',
      subject: { label: `${events.large} events`, samples: large.map((s) => s.heapMB) },
      baseline: { label: `${events.small} events`, samples: small.map((s) => s.heapMB) },
      limits: 'the tree held as decoded events in the page; the rows outside the viewport are not in the DOM',
    }),
  ];
}

export const viewerRender: Benchmark = {
  name: 'viewer-render',
  async run(ctx) {
    const events = { large: size(ctx, 100_000, 10_000), small: 1_000 };
    const large = newSessionId();
    const small = newSessionId();
    const writer = await treeWriter(ctx.config);
    try {
      ctx.log(`viewer-render: writing a ${events.large}-event tree and a ${events.small}-event one`);
      await writeViewerTree(writer.log, large, events.large, 3, Date.UTC(2026, 0, 1));
      await writeViewerTree(writer.log, small, events.small, 3, Date.UTC(2026, 0, 1));
    } finally {
      await writer.close();
    }
    const daemon = connectDaemon(ctx.config);
    const browser = await launchChromium(ctx.config);
    try {
      const samples = { large: [] as RenderSample[], small: [] as RenderSample[] };
      for (let rep = 0; rep < size(ctx, 5, 2); rep++) {
        samples.small.push(await renderOnce(browser, daemon, small, events.small));
        samples.large.push(await renderOnce(browser, daemon, large, events.large));
        ctx.log(`viewer-render: ${events.large} events in ${samples.large.at(-1)!.ms.toFixed(0)} ms, ${samples.large.at(-1)!.heapMB.toFixed(1)} MB`);
      }
      return viewerResults(events, samples.large, samples.small);
    } finally {
      await browser.close();
    }
  },
};
