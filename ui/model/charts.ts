/*
 * Data for the charts, shaped as uPlot wants it: one x array (seconds since the tree began,
 * ascending) and per series a y array of the same length, null where the series has no point.
 * The busiest MAX_SERIES groups (sessions by id, or cell statuses) get their own series; the rest
 * share one "others". Pure.
 */
import type { StoredEvent } from '../../schemas';

export const MAX_SERIES = 8;
export const OTHERS = 'others';

export interface Series {
  readonly label: string;
  readonly values: ReadonlyArray<number | null>;
}

export interface Aligned {
  readonly x: readonly number[];
  readonly series: readonly Series[];
}

interface Point {
  readonly t: number;
  readonly group: string;
  readonly values: readonly number[];
}

/** The groups with the largest `weight`, in that order, and whether any were left for "others". */
function topGroups(points: readonly Point[], weight: (p: Point) => number): { keep: string[]; rest: boolean } {
  const sums = new Map<string, number>();
  for (const p of points) sums.set(p.group, (sums.get(p.group) ?? 0) + weight(p));
  const ranked = [...sums.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([g]) => g);
  return { keep: ranked.slice(0, MAX_SERIES), rest: ranked.length > MAX_SERIES };
}

/**
 * Aligns points on one x axis; `cumulative` turns each series into its running total (carried
 * forward from its first point), else a series has a value only at its own points.
 */
function align(points: Point[], dims: number, weight: (p: Point) => number, cumulative: boolean): Aligned[] {
  points.sort((a, b) => a.t - b.t);
  const { keep, rest } = topGroups(points, weight);
  const labels = rest ? [...keep, OTHERS] : keep;
  const slot = new Map(keep.map((g, i) => [g, i]));
  const totals = labels.map(() => new Array<number | null>(dims).fill(null));
  const out = Array.from({ length: dims }, () => labels.map(() => [] as Array<number | null>));
  for (const p of points) {
    const s = slot.get(p.group) ?? keep.length;
    for (let d = 0; d < dims; d++) {
      if (cumulative) totals[s][d] = (totals[s][d] ?? 0) + p.values[d];
      labels.forEach((_, i) => out[d][i].push(cumulative ? totals[i][d] : i === s ? p.values[d] : null));
    }
  }
  const x = points.map((p) => p.t);
  return out.map((perSeries) => ({ x, series: perSeries.map((values, i) => ({ label: labels[i], values })) }));
}

const seconds = (ts: number, t0: number) => (ts - t0) / 1000;

/** Cumulative tokens (in + out, compactions included) and cost per agent; [tokens, cost]. */
export function costCharts(events: readonly StoredEvent[], t0: number): { tokens: Aligned; cost: Aligned } {
  const points: Point[] = [];
  for (const e of events) {
    const ev = e.event;
    if (ev.type === 'ModelCalled' || ev.type === 'Compacted') {
      points.push({ t: seconds(e.ts, t0), group: e.sessionId, values: [ev.tokensIn + ev.tokensOut, ev.costUsd] });
    }
  }
  const [tokens, cost] = align(points, 2, (p) => p.values[1] * 1e6 + p.values[0], true);
  return { tokens, cost };
}

export type CellGrouping = 'status' | 'session';

/** Each cell's duration in seconds at the time it started, one series per status or per session. */
export function cellChart(events: readonly StoredEvent[], t0: number, by: CellGrouping): Aligned {
  const points: Point[] = [];
  for (const e of events) {
    const ev = e.event;
    if (ev.type !== 'CellExecuted') continue;
    const group = by === 'status' ? ev.status : e.sessionId;
    points.push({ t: seconds(e.ts - ev.durationMs, t0), group, values: [ev.durationMs / 1000] });
  }
  return align(points, 1, () => 1, false)[0];
}
