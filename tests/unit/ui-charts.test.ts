import type { StoredEvent } from '../../schemas';
import { cellChart, costCharts, MAX_SERIES, OTHERS } from '../../ui/model/charts';
import { chain, ev } from '../helpers/replay-tree-fixture';
import { viewerTree } from './ui-fixture';

describe('chart data', () => {
  const { events } = viewerTree();

  it('aligns cumulative tokens and cost per agent on one time axis', () => {
    const { tokens, cost } = costCharts(events, 100);
    expect(tokens.x).toEqual([0.01, 0.1]);
    expect(cost.series.map((s) => s.label)).toEqual(['r/a', 'r']);
    expect(cost.series.map((s) => s.values)).toEqual([[null, 0.5], [0.25, 0.25]]);
    expect(tokens.series.map((s) => s.values)).toEqual([[null, 15], [15, 15]]);
  });

  it('puts agents past the busiest few into one series', () => {
    const many: StoredEvent[] = Array.from({ length: MAX_SERIES + 2 }, (_, i) =>
      chain(`r/c${i}`, [[1000 + i, { ...ev.model(1), costUsd: i + 1 } as never]]).records).flat();
    const { cost } = costCharts(many, 1000);
    expect(cost.series).toHaveLength(MAX_SERIES + 1);
    expect(cost.series[0].label).toBe(`r/c${MAX_SERIES + 1}`);
    expect(cost.series[MAX_SERIES].label).toBe(OTHERS);
    expect(cost.series[MAX_SERIES].values.slice(0, 2)).toEqual([1, 3]);
  });

  it('plots each cell at its start with its duration, by status or by session', () => {
    const cells = chain('r/a', [[2000, { ...ev.executed('r/a/0', 'x', ''), durationMs: 500 } as never], [2600, { ...ev.executed('r/a/1', 'y', '', 'error'), durationMs: 100 } as never]]).records;
    const byStatus = cellChart([...events, ...cells], 100, 'status');
    expect(byStatus.x).toEqual([0.02, 1.4, 2.4]);
    expect(byStatus.series).toEqual([{ label: 'ok', values: [0.01, 0.5, null] }, { label: 'error', values: [null, null, 0.1] }]);
    expect(cellChart([...events, ...cells], 100, 'session').series.map((s) => s.label)).toEqual(['r/a', 'r']);
  });
});
