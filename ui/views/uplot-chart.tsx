import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Aligned } from '../model/charts';

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f'];
const HEIGHT = 240;

interface Props {
  data: Aligned;
  /** The y axis' unit, shown on its label. */
  yLabel: string;
  /** Draw each point alone (cell durations) instead of lines (running totals). */
  points?: boolean;
  label(group: string): string;
}

/** One uPlot chart, rebuilt when its data changes and sized to its container's width. */
export function UPlotChart({ data, yLabel, points = false, label }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [{ label: 'seconds since the tree began' }, { label: yLabel }],
      series: [
        { label: 's' },
        ...data.series.map((s, i) => ({
          label: label(s.label),
          stroke: PALETTE[i % PALETTE.length],
          fill: points ? PALETTE[i % PALETTE.length] : undefined,
          ...(points ? { paths: () => null, points: { show: true, size: 7 } } : { spanGaps: false }),
        })),
      ],
    };
    const plot = new uPlot(opts, [data.x as number[], ...data.series.map((s) => s.values as Array<number | null>)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, yLabel, points]);
  return <div class="uplot-host" ref={ref} />;
}
