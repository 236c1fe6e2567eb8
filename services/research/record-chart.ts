import { Resvg } from '@resvg/resvg-js';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ResearchReport } from '../projector/research-report';

export interface ChartSize {
  width: number;
  height: number;
}

export const CHART_SIZE: ChartSize = { width: 960, height: 540 };
/*
 * resvg loads no font by itself and draws no text without one. Debian's fontconfig (which
 * Chromium, installed by `recur setup --browser`, pulls in) brings DejaVu; without any system
 * font the chart is still drawn, its text left out.
 */
const FONT = 'DejaVu Sans';
const HOUR_MS = 3_600_000;

/**
 * The record's train_steps over the session as a Vega-Lite spec: a step line through each record
 * (the one in force at the start, then each accepted) to the session's end, a point at each, and
 * each rejected candidate's steps, so what failed to beat the record shows beside it.
 */
export function recordChartSpec(r: ResearchReport, size: ChartSize = CHART_SIZE): TopLevelSpec {
  const start = r.startedAt ?? 0;
  const hours = (ts: number) => (ts - start) / HOUR_MS;
  const records = r.ledger.records.map((x) => ({ hours: hours(x.ts), steps: x.steps, what: 'record', id: x.id }));
  const line = r.recordNow && r.endedAt !== null ? [...records, { hours: hours(r.endedAt), steps: r.recordNow.steps, what: 'record', id: r.recordNow.id }] : records;
  const rejected = r.ledger.rows
    .filter((row) => row.kind === 'record' && row.steps !== null && !row.verdict?.accepted)
    .map((row) => ({ hours: hours(row.ts), steps: row.steps, what: 'rejected candidate', id: row.id }));
  const x = { field: 'hours', type: 'quantitative', title: 'hours since the session started' } as const;
  const y = { field: 'steps', type: 'quantitative', title: 'train_steps', scale: { zero: false } } as const;
  const color = { field: 'what', type: 'nominal', title: null, scale: { domain: ['record', 'rejected candidate'], range: ['#1f6feb', '#d73a49'] } } as const;
  return {
    width: size.width,
    height: size.height,
    // The PNG is exactly the size asked: axes, title and legend fit inside it.
    autosize: { type: 'fit', contains: 'padding' },
    padding: 12,
    background: 'white',
    title: `${r.task ?? r.sessionId}: the record over session ${r.sessionId}`,
    config: { font: FONT },
    layer: [
      { data: { values: line }, mark: { type: 'line', interpolate: 'step-after', color: '#1f6feb' }, encoding: { x, y } },
      { data: { values: [...records, ...rejected] }, mark: { type: 'point', filled: true, size: 70 }, encoding: { x, y, color, shape: { field: 'what', type: 'nominal', title: null, scale: { domain: ['record', 'rejected candidate'], range: ['circle', 'cross'] } } } },
    ],
  };
}

export async function recordChartSvg(r: ResearchReport, size: ChartSize = CHART_SIZE): Promise<string> {
  const view = new View(parse(compile(recordChartSpec(r, size)).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export async function recordChartPng(r: ResearchReport, size: ChartSize = CHART_SIZE): Promise<Buffer> {
  const svg = await recordChartSvg(r, size);
  return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: FONT, sansSerifFamily: FONT } }).render().asPng();
}
