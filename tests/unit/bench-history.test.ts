import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyEntry, previousFigures, ratioChange, renderChanges } from '../../bench/history';
import { appendHistory, readHistory } from '../../bench/history-file';
import { compare, renderSummary, type BenchReport } from '../../bench/report';

// The bench history's pure parts and its file, on fake runs: a regression has to show in summary.md.

const run = (startedAt: string, quick: boolean, subject: number[], baseline: number[]): BenchReport => ({
  startedAt, finishedAt: startedAt, quick, machine: { cpus: 2, memoryGiB: 8, node: '20.0.0', platform: 'linux' }, plots: [],
  results: [
    compare({ name: 'start/x', title: 'Start | x', unit: 'ms', better: 'lower', subject: { label: 's', samples: subject }, baseline: { label: 'b', samples: baseline }, limits: '' }),
    { name: 'broken', title: 'Broken', status: 'failed', error: 'boom' },
  ],
});

describe('bench history', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'bench-history-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps one line per run with each measured figure’s medians and ratio, and reads them back in order', () => {
    const file = join(dir, 'history.jsonl');
    expect(readHistory(file)).toEqual([]);
    appendHistory(file, historyEntry(run('2026-01-01T00:00:00.000Z', false, [20], [10]), 'abc123'));
    appendHistory(file, historyEntry(run('2026-01-02T00:00:00.000Z', true, [30], [10]), null));
    const read = readHistory(file);
    expect(read.map((e) => [e.startedAt, e.quick, e.commit])).toEqual([['2026-01-01T00:00:00.000Z', false, 'abc123'], ['2026-01-02T00:00:00.000Z', true, null]]);
    expect(read[0].figures).toEqual({ 'start/x': { unit: 'ms', better: 'lower', subjectMedian: 20, baselineMedian: 10, ratio: 2 } });
  });

  it('skips a line a killed run left half-written', () => {
    const file = join(dir, 'history.jsonl');
    appendHistory(file, historyEntry(run('2026-01-01T00:00:00.000Z', false, [20], [10]), null));
    appendFileSync(file, '{"startedAt": "2026-01-0');
    expect(readHistory(file)).toHaveLength(1);
  });

  it('takes each figure from the latest earlier run of the same kind, quick with quick', () => {
    const history = [
      historyEntry(run('2026-01-01T00:00:00.000Z', false, [20], [10]), 'a'),
      historyEntry(run('2026-01-02T00:00:00.000Z', false, [15], [10]), 'b'),
      historyEntry(run('2026-01-03T00:00:00.000Z', true, [90], [10]), 'c'),
    ];
    expect(previousFigures(history, false).get('start/x')).toEqual({ ratio: 1.5, startedAt: '2026-01-02T00:00:00.000Z', commit: 'b' });
    expect(previousFigures(history, true).get('start/x')?.ratio).toBe(9);
    expect(previousFigures([], false).size).toBe(0);
  });

  it('says how a ratio moved and whether that is the better way', () => {
    expect(ratioChange(2, 2.5, 'lower')).toBe('+25% (worse)');
    expect(ratioChange(2, 1.5, 'lower')).toBe('−25% (better)');
    expect(ratioChange(2, 2.5, 'higher')).toBe('+25% (better)');
    expect(ratioChange(2, 2, 'lower')).toBe('±0%');
    expect(ratioChange(null, 2, 'lower')).toBe('n/a');
  });

  it('shows a regression in the summary against the previous run, and no section without one', () => {
    const previous = previousFigures([historyEntry(run('2026-01-01T00:00:00.000Z', false, [20], [10]), 'abc123')], false);
    const now = run('2026-01-02T00:00:00.000Z', false, [30], [10]);
    expect(renderChanges(now, previous)).toContain('| Start \\| x | 2× → 3× | +50% (worse) | 2026-01-01T00:00:00.000Z (abc123) |');
    expect(renderSummary(now, previous)).toContain('## Change against the previous full run');
    expect(renderSummary(now)).not.toContain('## Change against');
  });
});
