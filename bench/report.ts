import { renderChanges, type Previous } from './history';
import type { BenchReport, Failed, Measured, NotMeasurable } from './results';
import { ratio, summarize, tidy } from './stats';

export type { Side, Measured, NotMeasurable, Failed, BenchResult, BenchReport } from './results';

/** A measured comparison from raw samples. */
export function compare(c: {
  name: string;
  title: string;
  unit: string;
  better: 'lower' | 'higher';
  subject: { label: string; samples: readonly number[] };
  baseline: { label: string; samples: readonly number[] };
  limits: string;
  details?: Record<string, unknown>;
}): Measured {
  const subject = { label: c.subject.label, summary: summarize(c.subject.samples) };
  const baseline = { label: c.baseline.label, summary: summarize(c.baseline.samples) };
  return {
    name: c.name, title: c.title, status: 'measured', unit: c.unit, better: c.better, subject, baseline,
    ratio: ratio(subject.summary, baseline.summary), limits: c.limits, ...(c.details && { details: c.details }),
  };
}

export const notYet = (name: string, title: string, why: string): NotMeasurable => ({ name, title, status: 'not-yet-measurable', why });

const fmt = (x: number, unit: string) => `${tidy(x)} ${unit}`;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The short human table: one row per measured figure, how each moved since its previous run, then what could not be measured and why. */
export function renderSummary(report: BenchReport, previous: ReadonlyMap<string, Previous> = new Map()): string {
  const measured = report.results.filter((r): r is Measured => r.status === 'measured');
  const pending = report.results.filter((r): r is NotMeasurable => r.status === 'not-yet-measurable');
  const failed = report.results.filter((r): r is Failed => r.status === 'failed');
  const m = report.machine;
  const lines = [
    '# Recur benchmarks',
    '',
    `${report.quick ? 'Quick run (small N)' : 'Full run'}, ${report.startedAt} to ${report.finishedAt}, on ${m.cpus} CPUs, ` +
      `${m.memoryGiB} GiB, Node ${m.node}. Ratios are Recur's median over its baseline's median, measured in the same run; ` +
      'absolute figures move with the machine, ratios much less.',
    '',
    '| benchmark | Recur median (p90) | baseline median (p90) | ratio | n | limited by |',
    '|---|---|---|---|---|---|',
    ...measured.map((r) => {
      const s = r.subject.summary;
      const b = r.baseline.summary;
      const ratio = r.ratio === null ? 'n/a' : `${tidy(r.ratio)}× (${r.better} is better)`;
      return `| ${cell(r.title)} | ${fmt(s.median, r.unit)} (${fmt(s.p90, r.unit)}) | ${cell(r.baseline.label)}: ` +
        `${fmt(b.median, r.unit)} (${fmt(b.p90, r.unit)}) | ${ratio} | ${s.n} / ${b.n} | ${cell(r.limits)} |`;
    }),
    ...renderChanges(report, previous),
  ];
  if (pending.length) lines.push('', '## Not yet measurable', '', ...pending.map((r) => `- **${r.title}**: ${r.why}`));
  if (failed.length) lines.push('', '## Failed in this run', '', ...failed.map((r) => `- **${r.title}**: ${cell(r.error)}`));
  if (report.plots.length) lines.push('', '## Plots', '', ...report.plots.map((p) => `![${p}](${p})`));
  return lines.join('\n') + '\n';
}
