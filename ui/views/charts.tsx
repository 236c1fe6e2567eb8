import { useMemo, useState } from 'preact/hooks';
import { cellChart, costCharts, OTHERS, type CellGrouping } from '../model/charts';
import { shortName, treeStart } from '../model/rows';
import type { SessionViewProps } from '../state/types';
import { UPlotChart } from './uplot-chart';
import './views.css';

const sessionLabel = (group: string) => (group === OTHERS ? OTHERS : shortName(group));

/** Spend per agent over time, and how long each cell ran. */
export function ChartsView(props: SessionViewProps) {
  const { tree } = props;
  const [by, setBy] = useState<CellGrouping>('status');
  const t0 = useMemo(() => treeStart(tree.events), [tree.version]);
  const cost = useMemo(() => costCharts(tree.events, t0), [tree.version, t0]);
  const cells = useMemo(() => cellChart(tree.events, t0, by), [tree.version, t0, by]);
  return (
    <div class="view charts-view">
      <section data-testid="chart-cost" data-points={cost.tokens.x.length}>
        <h3>Tokens and cost per agent</h3>
        {cost.tokens.x.length === 0 ? <p class="dim">No model calls yet.</p> : (
          <>
            <UPlotChart data={cost.tokens} yLabel="tokens (cumulative)" label={sessionLabel} />
            <UPlotChart data={cost.cost} yLabel="US$ (cumulative)" label={sessionLabel} />
          </>
        )}
      </section>
      <section data-testid="chart-cells" data-points={cells.x.length}>
        <h3>
          Cell durations, by{' '}
          <select data-testid="chart-cells-by" value={by} onChange={(ev) => setBy((ev.currentTarget as HTMLSelectElement).value as CellGrouping)}>
            <option value="status">status</option>
            <option value="session">session</option>
          </select>
        </h3>
        {cells.x.length === 0 ? <p class="dim">No cells ran yet.</p> : (
          <UPlotChart data={cells} yLabel="seconds" points label={by === 'session' ? sessionLabel : (g) => g} />
        )}
      </section>
    </div>
  );
}
