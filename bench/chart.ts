import { Raster, textWidth, type Rgb } from './raster';

export interface Series {
  label: string;
  points: ReadonlyArray<readonly [number, number]>;
}

export interface LineChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

export interface BarChartSpec {
  title: string;
  yLabel: string;
  /** One entry per bar within a group; bars take the palette's colours in this order. */
  legend: string[];
  groups: Array<{ label: string; values: number[] }>;
}

const PALETTE: Rgb[] = [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189], [140, 86, 75]];
const INK: Rgb = [30, 30, 30];
const GRID: Rgb = [225, 225, 225];
const W = 800;
const H = 480;
const PLOT = { left: 90, right: W - 35, top: 60, bottom: H - 70 };

/** The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k) at or above v; 1 for v ≤ 0. */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * p).find((c) => c >= v * (1 - 1e-12))!;
}

/** Short tick text: 1500 → 1.5K, 2000000 → 2M, 0.25 → 0.25. */
export function compact(x: number): string {
  const abs = Math.abs(x);
  const [div, suffix] = abs >= 1e6 ? [1e6, 'M'] : abs >= 1e4 ? [1e3, 'K'] : [1, ''];
  return `${Number((x / div).toPrecision(3))}${suffix}`;
}

/** Axes from 0 to a nice maximum with five grid lines, the title, axis labels and a legend. */
function frame(spec: { title: string; yLabel: string }, yMax: number, legend: string[]): { r: Raster; y: (v: number) => number } {
  const r = new Raster(W, H);
  const top = niceCeil(yMax);
  const y = (v: number) => PLOT.bottom - ((PLOT.bottom - PLOT.top) * v) / top;
  for (let i = 0; i <= 5; i++) {
    const v = (top * i) / 5;
    r.line(PLOT.left, y(v), PLOT.right, y(v), i === 0 ? INK : GRID);
    const label = compact(v);
    r.text(PLOT.left - 8 - textWidth(label), y(v) - 7, label, INK);
  }
  r.line(PLOT.left, PLOT.top, PLOT.left, PLOT.bottom, INK);
  r.text(12, 12, spec.title, INK, 3);
  r.text(12, PLOT.top - 22, spec.yLabel, INK);
  let x = PLOT.right;
  for (let i = legend.length - 1; i >= 0; i--) {
    x -= textWidth(legend[i]) + 26;
    r.rect(x, PLOT.top - 22, 14, 14, PALETTE[i % PALETTE.length]);
    r.text(x + 20, PLOT.top - 22, legend[i], INK);
  }
  return { r, y };
}

export function lineChart(spec: LineChartSpec): Buffer {
  const all = spec.series.flatMap((s) => s.points);
  const { r, y } = frame(spec, Math.max(0, ...all.map((p) => p[1])), spec.series.map((s) => s.label));
  const xMax = niceCeil(Math.max(0, ...all.map((p) => p[0])));
  const x = (v: number) => PLOT.left + ((PLOT.right - PLOT.left) * v) / xMax;
  for (let i = 0; i <= 5; i++) {
    const label = compact((xMax * i) / 5);
    r.line(x((xMax * i) / 5), PLOT.bottom, x((xMax * i) / 5), PLOT.bottom + 5, INK);
    r.text(x((xMax * i) / 5) - textWidth(label) / 2, PLOT.bottom + 10, label, INK);
  }
  r.text((PLOT.left + PLOT.right - textWidth(spec.xLabel)) / 2, H - 28, spec.xLabel, INK);
  spec.series.forEach((s, k) => {
    const c = PALETTE[k % PALETTE.length];
    s.points.forEach(([px, py], i) => {
      if (i > 0) r.line(x(s.points[i - 1][0]), y(s.points[i - 1][1]), x(px), y(py), c, 2);
      r.rect(x(px) - 2, y(py) - 2, 5, 5, c);
    });
  });
  return r.png();
}

export function barChart(spec: BarChartSpec): Buffer {
  const { r, y } = frame(spec, Math.max(0, ...spec.groups.flatMap((g) => g.values)), spec.legend);
  const groupW = (PLOT.right - PLOT.left) / Math.max(1, spec.groups.length);
  spec.groups.forEach((g, gi) => {
    const barW = (groupW * 0.8) / Math.max(1, g.values.length);
    const x0 = PLOT.left + gi * groupW + groupW * 0.1;
    g.values.forEach((v, k) => {
      r.rect(x0 + k * barW + 1, y(v), barW - 2, PLOT.bottom - y(v), PALETTE[k % PALETTE.length]);
      const label = compact(v);
      r.text(x0 + k * barW + (barW - textWidth(label)) / 2, y(v) - 18, label, INK);
    });
    r.text(PLOT.left + gi * groupW + (groupW - textWidth(g.label)) / 2, PLOT.bottom + 12, g.label, INK);
  });
  return r.png();
}
