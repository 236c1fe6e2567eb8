import type { Browser } from 'playwright-core';
import { connectDaemon, type DaemonClient } from '../services/cli/daemon-client';
import { restartDaemon } from '../services/devstack';
import type { CatalogReply } from '../services/daemon/api-types';
import { newSessionId } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { launchChromium, viewerLoginUrl } from './chromium';
import { compare, type BenchResult } from './report';
import { summarize } from './stats';
import { treeWriter, writeViewerTree } from './viewer-tree';

/** One page load of a tree's timeline, on the page's clock from navigation start. */
export interface RenderSample {
  /** Until its first row showed with the whole tree counted (the rest of the rows may still be on the way). */
  ms: number;
  /** Until every event of the tree was in the page. */
  loadedMs: number;
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

/** The page's clock once every event of the tree is in the timeline (no row is a placeholder), else false. */
export function loadedAt([root, count]: readonly [PageNode, number]): number | false {
  return root.querySelector('[data-testid=timeline]')?.getAttribute('data-loaded') === String(count) ? performance.now() : false;
}

/** Resolves once the daemon's catalog has read the whole topic: the sessions list starts it, and a sample must not share the daemon with it. */
async function catalogCaughtUp(daemon: DaemonClient): Promise<void> {
  while (!(await daemon.get<CatalogReply>('/v1/catalog')).complete) await new Promise((resolve) => setTimeout(resolve, 200));
}

/** A fresh page (signed in), a full load of the tree's timeline, the time to the whole tree shown and the heap after a GC. */
async function renderOnce(browser: Browser, daemon: DaemonClient, root: string, count: number): Promise<RenderSample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(await viewerLoginUrl(daemon));
    await page.waitForURL((url) => url.hash === '#/');
    await page.goto('about:blank');
    await catalogCaughtUp(daemon);
    await page.goto(`${daemon.url}/ui/#/s/${encodeURIComponent(root)}/timeline`);
    const scope = page.getByTestId('timeline-scope');
    const failed = page.locator('.session-page .error');
    await scope.or(failed).waitFor({ timeout: 120_000 });
    if (await failed.isVisible()) throw new Error(`the viewer could not load ${root}: ${await failed.innerText()}`);
    // The whole tree is the figure: the page opens a root on the whole tree.
    if ((await scope.inputValue()) !== 'tree') throw new Error(`the viewer opened ${root} on its ${await scope.inputValue()} scope`);
    const html = await page.locator('html').elementHandle();
    const ms = (await (await page.waitForFunction(renderedAt, [html, count] as const, { polling: 'raf', timeout: 120_000 })).jsonValue()) as number;
    const loadedMs = (await (await page.waitForFunction(loadedAt, [html, count] as const, { polling: 'raf', timeout: 120_000 })).jsonValue()) as number;
    const cdp = await context.newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
    // The page's verification reads the whole topic on the daemon; the next sample must not share the daemon with it.
    await page.locator('[data-testid=verify-badge]:not([data-state=pending])').waitFor({ timeout: 300_000 });
    return { ms, loadedMs, heapMB: heap / 2 ** 20 };
  } finally {
    await context.close();
  }
}

/** The samples of a run: loads of each tree from a daemon with its tree cache, and from one that keeps none. */
export interface ViewerSamples {
  held: { large: RenderSample[]; small: RenderSample[] };
  unheld: { large: RenderSample[]; small: RenderSample[] };
}

/**
 * The figures of a run: the large tree against the small one, both loaded the same way in the
 * same browser. With its cache the daemon has read both trees ahead (its catalog follower, which
 * the sessions list starts, hands every record to the cache), so even the first load of each
 * finds it held. The daemon without a cache (RECUR_UI_CACHE_MIB=0) reads the tree from Kafka at
 * every load: what the first open of a tree outside the cache costs.
 */
export function viewerResults(events: { large: number; small: number }, samples: ViewerSamples): BenchResult[] {
  const { held, unheld } = samples;
  const k = events.large / 1000;
  const within = (s: RenderSample[]) => summarize(s.map((x) => x.ms)).median <= TARGET_MS;
  return [
    compare({
      name: 'viewer-render/first-render', title: `Viewer: load of a ${k}k-event tree to its timeline shown, the daemon holding the tree (target ≤ ${TARGET_MS} ms)`,
      unit: 'ms', better: 'lower',
      subject: { label: `${events.large} events`, samples: held.large.map((s) => s.ms) },
      baseline: { label: `${events.small} events`, samples: held.small.map((s) => s.ms) },
      limits: 'the daemon writing the tree from its cache as JSON lines, then Chromium parsing the first of them and rendering the rows in view',
      details: { targetMs: TARGET_MS, withinTarget: within(held.large), firstLoadMs: held.large[0]?.ms },
    }),
    compare({
      name: 'viewer-render/first-render-unheld', title: `Viewer: load of a ${k}k-event tree to its timeline shown, read from Kafka (a daemon keeping no tree; target ≤ ${TARGET_MS} ms)`,
      unit: 'ms', better: 'lower',
      subject: { label: `${events.large} events`, samples: unheld.large.map((s) => s.ms) },
      baseline: { label: `${events.small} events`, samples: unheld.small.map((s) => s.ms) },
      limits: 'the daemon reading the tree from Kafka (from its offset-index entry), decoding and checking every record and merging the sessions in causal order, before the first line goes out',
      details: { targetMs: TARGET_MS, withinTarget: within(unheld.large) },
    }),
    compare({
      name: 'viewer-render/full-load', title: `Viewer: load of a ${k}k-event tree until every event is in the page, the daemon holding the tree`,
      unit: 'ms', better: 'lower',
      subject: { label: `${events.large} events`, samples: held.large.map((s) => s.loadedMs) },
      baseline: { label: `${events.small} events`, samples: held.small.map((s) => s.loadedMs) },
      limits: 'Chromium parsing the JSON lines (about 1.6 kB an event) while the page stays interactive; the rows re-derived at most every 250 ms',
    }),
    compare({
      name: 'viewer-render/heap', title: `Viewer: page JS heap with a ${k}k-event tree loaded (after a GC)`,
      unit: 'MB', better: 'lower',
      subject: { label: `${events.large} events`, samples: held.large.map((s) => s.heapMB) },
      baseline: { label: `${events.small} events`, samples: held.small.map((s) => s.heapMB) },
      limits: 'the tree held as decoded events in the page; the rows outside the viewport are not in the DOM',
    }),
  ];
}

/** `reps` loads of each tree, the small one first each time, from the daemon `config` runs. */
async function loadBoth(ctx: BenchContext, browser: Browser, trees: { large: string; small: string }, events: { large: number; small: number }, reps: number) {
  const daemon = connectDaemon(ctx.config);
  const samples = { large: [] as RenderSample[], small: [] as RenderSample[] };
  for (let rep = 0; rep < reps; rep++) {
    samples.small.push(await renderOnce(browser, daemon, trees.small, events.small));
    samples.large.push(await renderOnce(browser, daemon, trees.large, events.large));
    const last = samples.large.at(-1)!;
    ctx.log(`viewer-render: ${events.large} events shown in ${last.ms.toFixed(0)} ms, all in by ${last.loadedMs.toFixed(0)} ms, ${last.heapMB.toFixed(1)} MB`);
  }
  return samples;
}

export const viewerRender: Benchmark = {
  name: 'viewer-render',
  async run(ctx) {
    const events = { large: size(ctx, 100_000, 10_000), small: 1_000 };
    const trees = { large: newSessionId(), small: newSessionId() };
    const writer = await treeWriter(ctx.config);
    try {
      ctx.log(`viewer-render: writing a ${events.large}-event tree and a ${events.small}-event one`);
      await writeViewerTree(writer.log, trees.large, events.large, 3, Date.UTC(2026, 0, 1));
      await writeViewerTree(writer.log, trees.small, events.small, 3, Date.UTC(2026, 0, 1));
    } finally {
      await writer.close();
    }
    const browser = await launchChromium(ctx.config);
    const restart = (cacheMiB: number) => restartDaemon({ ...ctx.config, ui: { ...ctx.config.ui, cacheMiB } }, (line) => ctx.log(`[stack] ${line}`));
    try {
      ctx.log('viewer-render: loads from a daemon keeping no tree (each reads it from Kafka)');
      await restart(0);
      let unheld: ViewerSamples['unheld'];
      try {
        unheld = await loadBoth(ctx, browser, trees, events, size(ctx, 3, 2));
      } finally {
        // The stack's own daemon again, started after the trees were written: its follower reads them ahead.
        await restart(ctx.config.ui.cacheMiB);
      }
      ctx.log('viewer-render: loads from a daemon with its tree cache');
      const held = await loadBoth(ctx, browser, trees, events, size(ctx, 6, 3));
      return viewerResults(events, { held, unheld });
    } finally {
      await browser.close();
    }
  },
};
