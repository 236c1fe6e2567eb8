/**
 * Runs Recur's benchmarks on a stack of their own and writes reports/bench/results.json and
 * summary.md (plus PNG plots), and appends the run's figures to history.jsonl there, so the
 * summary can show how each moved since its previous run.
 *
 *   npm run bench -- [--quick] [--only step-overhead,cell-round-trip] [--out DIR]
 *
 * Every figure is compared with a baseline measured in the same run, because absolute times on
 * a small shared machine mean little. Nothing here asserts a timing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { repoRoot } from '../services/home/repo-root';
import { parseBenchArgs } from './args';
import { benchConfig, startBenchStack } from './bench-stack';
import type { BenchContext, Benchmark } from './benchmark';
import { cellRoundTrip } from './cell-round-trip';
import { eventLog } from './event-log';
import { eventSeal } from './event-seal';
import { fanOut } from './fan-out';
import { fenceParse } from './fence-parse';
import { gateSandbox } from './gate-sandbox';
import { historyGrowth } from './history-growth';
import { kernelMemory } from './kernel-memory';
import { historyEntry, previousFigures } from './history';
import { appendHistory, checkoutCommit, readHistory } from './history-file';
import { renderSummary, type BenchReport } from './report';
import { retainedHosts } from './retained-hosts';
import { retainedScale } from './retained-scale';
import { sandboxBench } from './sandbox';
import { sessionStart } from './session-start';
import { snapshotBench } from './snapshot';
import { stepOverhead } from './step-overhead';
import { stepParts } from './step-parts';
import { throttledNight } from './throttled-night';
import { freshInstall } from './fresh-install';
import { workerKill } from './worker-kill';
import { viewerRender } from './viewer-render';
import { workspaceScan } from './workspace-scan';

const BENCHMARKS: Benchmark[] = [stepOverhead, stepParts, cellRoundTrip, sandboxBench, gateSandbox, eventLog, historyGrowth, snapshotBench, kernelMemory, workerKill, fenceParse, eventSeal, workspaceScan, viewerRender, sessionStart, fanOut, retainedScale, retainedHosts, throttledNight, freshInstall];

async function main(): Promise<void> {
  const names = BENCHMARKS.map((b) => b.name);
  const args = parseBenchArgs(process.argv.slice(2), names, join(repoRoot(), 'reports', 'bench'));
  const selected = BENCHMARKS.filter((b) => args.only.length === 0 || args.only.includes(b.name));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  mkdirSync(args.out, { recursive: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const report: BenchReport = {
    startedAt: new Date().toISOString(), finishedAt: '', quick: args.quick,
    machine: { cpus: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.versions.node, platform: process.platform },
    results: [], plots: [],
  };
  const historyFile = join(args.out, 'history.jsonl');
  const previous = previousFigures(readHistory(historyFile), args.quick);
  const write = () => {
    report.finishedAt = new Date().toISOString();
    writeFileSync(join(args.out, 'results.json'), JSON.stringify(report, null, 2) + '\n');
    writeFileSync(join(args.out, 'summary.md'), renderSummary(report, previous));
  };
  const config = benchConfig();
  const ctx: BenchContext = {
    config, quick: args.quick, log,
    plot(name, png) {
      writeFileSync(join(args.out, name), png);
      if (!report.plots.includes(name)) report.plots.push(name);
      return name;
    },
  };
  log(`bench stack: home ${config.home}, kafka ${config.ports.kafka}, temporal ${config.ports.temporal}, jupyter ${config.ports.jupyter}`);
  const stop = await startBenchStack(config, log);
  try {
    for (const b of selected) {
      const t0 = Date.now();
      log(`== ${b.name}`);
      try {
        report.results.push(...(await b.run(ctx)));
      } catch (e) {
        log(`${b.name} failed: ${(e as Error).stack ?? String(e)}`);
        report.results.push({ name: b.name, title: b.name, status: 'failed', error: (e as Error).message ?? String(e) });
      }
      log(`== ${b.name} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      write();
    }
  } finally {
    await stop();
  }
  write();
  appendHistory(historyFile, historyEntry(report, checkoutCommit(repoRoot())));
  process.stdout.write(renderSummary(report, previous));
  if (report.results.some((r) => r.status === 'failed')) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
