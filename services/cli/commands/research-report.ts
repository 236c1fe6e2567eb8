import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ExitError } from '../../../errors';
import { researchReport, type ResearchReport } from '../../projector/research-report';
import { CHART_SIZE, recordChartPng, type ChartSize } from '../../research/record-chart';
import type { CommandContext } from '../command-context';
import { formatLedger, readResearchTree } from './research-ledger';

const usd = (n: number) => `$${n.toFixed(4)}`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function duration(ms: number): string {
  // A scripted session lasts seconds: tenths keep its short stretches apart from none.
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The report's summary: what was tried and kept, what it cost, how much of the time nothing ran. */
export function formatReport(r: ResearchReport): string[] {
  const trials = r.ledger.rows.filter((x) => x.kind === 'trial').length;
  const lines = [`report of ${r.sessionId}: ${r.task}, ${plural(r.experiments, 'experiment')} (${plural(trials, 'screen')}, ${plural(r.experiments - trials, 'record candidate')}), ${plural(r.accepted, 'accepted record')}`];
  const { recordAtStart: first, recordNow: now } = r;
  if (first && now) {
    const gain = now === first ? 'unchanged' : `${(100 * (1 - now.steps / first.steps)).toFixed(1)}% fewer steps`;
    lines.push(`record: ${now.id} ${now.steps} steps now, ${first.id} ${first.steps} at the start (${gain})`);
  }
  if (r.spent) {
    const per = r.perAccepted ? `${int(r.perAccepted.tokensIn)} in, ${int(r.perAccepted.tokensOut)} out, ${usd(r.perAccepted.costUsd)}` : 'none (no record accepted)';
    lines.push(`spent: ${int(r.spent.tokensIn)} tokens in, ${int(r.spent.tokensOut)} out, ${usd(r.spent.costUsd)} over ${r.spent.calls} model calls; per accepted record: ${per}`);
  }
  const t = r.time;
  const idle = t.idleFraction === null ? 'no wall time yet' : `idle ${(100 * t.idleFraction).toFixed(1)}% of ${duration(t.wallMs)}`;
  const gap = t.longestIdle && r.startedAt !== null ? `, longest idle ${duration(t.longestIdle.ms)} from +${duration(t.longestIdle.start - r.startedAt)}` : '';
  lines.push(`time: ${idle}${gap}; busy with model calls only ${duration(t.modelOnlyMs)}, jobs only ${duration(t.jobsOnlyMs)}, both ${duration(t.bothMs)}`);
  return lines;
}

/** Writes the record chart as `record.png` in `dir` (made when missing); returns the file. */
export async function writeRecordChart(r: ResearchReport, dir: string, size: ChartSize = CHART_SIZE): Promise<string> {
  const png = await recordChartPng(r, size);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'record.png');
  writeFileSync(file, png);
  return file;
}

/**
 * `recur research report <session-id> [--out DIR] [--json]`: the summary, the ledger table and
 * record.png in DIR (the current directory by default; `--out -` writes no chart). --json prints
 * the report with `chart`, the PNG's path or null.
 */
export async function report(ctx: CommandContext, sessionId: string): Promise<number> {
  const events = await readResearchTree(sessionId);
  const r = researchReport(sessionId, events);
  if (r.task === null) throw new ExitError(1, `${sessionId} is no research session (it was not started with --research)`);
  const out = typeof ctx.flags.out === 'string' ? ctx.flags.out : '.';
  const chart = out === '-' ? null : await writeRecordChart(r, resolve(out));
  if (ctx.flags.json) {
    ctx.out(JSON.stringify({ ...r, chart }));
    return 0;
  }
  for (const line of formatReport(r)) ctx.out(line);
  ctx.out('');
  for (const line of formatLedger(r.ledger)) ctx.out(line);
  if (chart) ctx.out(`chart: ${chart}`);
  return 0;
}
