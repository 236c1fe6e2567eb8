import type { BenchReport, Measured } from './results';
import { tidy } from './stats';

/** One figure of one run, as the history keeps it. */
export interface HistoryFigure {
  unit: string;
  better: Measured['better'];
  subjectMedian: number;
  baselineMedian: number;
  ratio: number | null;
}

/** One `npm run bench` run: a line of reports/bench/history.jsonl. */
export interface HistoryEntry {
  startedAt: string;
  quick: boolean;
  machine: BenchReport['machine'];
  /** The checkout's commit, `-dirty` when it had uncommitted changes; null outside git. */
  commit: string | null;
  figures: Record<string, HistoryFigure>;
}

/** The latest earlier value of a figure, and the run it came from. */
export interface Previous {
  ratio: number | null;
  startedAt: string;
  commit: string | null;
}

export function historyEntry(report: BenchReport, commit: string | null): HistoryEntry {
  const figures: Record<string, HistoryFigure> = {};
  for (const r of report.results) {
    if (r.status !== 'measured') continue;
    figures[r.name] = { unit: r.unit, better: r.better, subjectMedian: r.subject.summary.median, baselineMedian: r.baseline.summary.median, ratio: r.ratio };
  }
  return { startedAt: report.startedAt, quick: report.quick, machine: report.machine, commit, figures };
}

/**
 * Each figure's value in the latest run before this one that measured it. Quick runs are compared
 * only with quick runs and full with full: their sample sizes differ too much to read a change.
 */
export function previousFigures(history: readonly HistoryEntry[], quick: boolean): Map<string, Previous> {
  const found = new Map<string, Previous>();
  for (const entry of history) {
    if (entry.quick !== quick) continue;
    for (const [name, f] of Object.entries(entry.figures)) found.set(name, { ratio: f.ratio, startedAt: entry.startedAt, commit: entry.commit });
  }
  return found;
}

const times = (r: number | null) => (r === null ? 'n/a' : `${tidy(r)}×`);

/** `+12%` / `−8%` / `±0%`: how the ratio moved, with whether that is the better way. */
export function ratioChange(before: number | null, now: number | null, better: Measured['better']): string {
  if (before === null || now === null || before === 0) return 'n/a';
  const pct = Math.round((now / before - 1) * 100);
  if (pct === 0) return '±0%';
  const improved = (pct < 0) === (better === 'lower');
  return `${pct > 0 ? '+' : '−'}${Math.abs(pct)}% (${improved ? 'better' : 'worse'})`;
}

/** The summary's section on what moved since the previous run of each figure; empty when nothing was measured before. */
export function renderChanges(report: BenchReport, previous: ReadonlyMap<string, Previous>): string[] {
  const rows = report.results.flatMap((r) => {
    const before = r.status === 'measured' ? previous.get(r.name) : undefined;
    if (r.status !== 'measured' || !before) return [];
    return [`| ${r.title.replace(/\|/g, '\\|')} | ${times(before.ratio)} → ${times(r.ratio)} | ${ratioChange(before.ratio, r.ratio, r.better)} | ${before.startedAt}${before.commit ? ` (${before.commit})` : ''} |`];
  });
  if (rows.length === 0) return [];
  return [
    '', `## Change against the previous ${report.quick ? 'quick' : 'full'} run`, '',
    '| benchmark | ratio before → now | change | previous run |', '|---|---|---|---|', ...rows,
  ];
}
