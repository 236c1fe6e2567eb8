/*
 * What a benchmark returns and a run writes to results.json; bench/report.ts renders it and
 * bench/history.ts compares it with the previous run.
 */
import type { Summary } from './stats';

/** One side of a comparison: what ran, and its samples' summary. */
export interface Side {
  label: string;
  summary: Summary;
}

export interface Measured {
  name: string;
  title: string;
  status: 'measured';
  unit: string;
  /** Which way is better, for reading the ratio (the ratio is always subject median / baseline median). */
  better: 'lower' | 'higher';
  subject: Side;
  baseline: Side;
  ratio: number | null;
  /** What bounds this number: the dominant cost, the machine, the sample size. */
  limits: string;
  details?: Record<string, unknown>;
}

export interface NotMeasurable {
  name: string;
  title: string;
  status: 'not-yet-measurable';
  why: string;
}

export interface Failed {
  name: string;
  title: string;
  status: 'failed';
  error: string;
}

export type BenchResult = Measured | NotMeasurable | Failed;

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  quick: boolean;
  machine: { cpus: number; memoryGiB: number; node: string; platform: string };
  results: BenchResult[];
  /** PNG files, relative to the report directory. */
  plots: string[];
}
