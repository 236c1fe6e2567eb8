/** Order statistics of one set of samples. Pure: the smoke test runs it on fake data. */
export interface Summary {
  n: number;
  median: number;
  p90: number;
  min: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of sorted samples (p in 0..1): always one of the samples, never interpolated. */
function rank(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new RangeError('summarize: no samples');
  if (samples.some((x) => !Number.isFinite(x))) throw new RangeError('summarize: a sample is not a finite number');
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return { n: sorted.length, median, p90: rank(sorted, 0.9), min: sorted[0], max: sorted[sorted.length - 1], mean };
}

/** Medians compared: how many times the baseline's figure the subject's is. */
export function ratio(subject: Summary, baseline: Summary): number | null {
  return baseline.median === 0 ? null : subject.median / baseline.median;
}

/** Differences between consecutive values (e.g. event timestamps into per-step times). */
export function deltas(xs: readonly number[]): number[] {
  return xs.slice(1).map((x, i) => x - xs[i]);
}

/** Rounds for reports: 3 significant digits below 100, whole numbers above. */
export function tidy(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 100) return Math.round(x);
  return Number(x.toPrecision(3));
}
