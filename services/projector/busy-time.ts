/*
 * How a stretch of wall time splits between model calls, jobs, both and neither, from intervals
 * that may overlap, nest or run past the stretch. Pure, no Node modules: the research report's
 * idle fraction is this over a session tree's log.
 */

export interface Interval {
  kind: 'model' | 'job';
  start: number;
  end: number;
}

export interface BusyTime {
  wallMs: number;
  /** No model call in flight and no job running. */
  idleMs: number;
  modelOnlyMs: number;
  jobsOnlyMs: number;
  bothMs: number;
  /** idleMs / wallMs; null when the window has no length. */
  idleFraction: number | null;
  /** The longest stretch of idle time, ms since the epoch; null when there is none. */
  longestIdle: { start: number; end: number; ms: number } | null;
}

/**
 * A sweep over the intervals' edges, counting how many of each kind are open: overlapping and
 * nested intervals then count once without merging them first. Intervals are clipped to the window.
 */
export function busyTime(window: { start: number; end: number }, intervals: readonly Interval[]): BusyTime {
  const out: BusyTime = { wallMs: Math.max(0, window.end - window.start), idleMs: 0, modelOnlyMs: 0, jobsOnlyMs: 0, bothMs: 0, idleFraction: null, longestIdle: null };
  const edges: { t: number; kind: Interval['kind']; delta: 1 | -1 }[] = [];
  for (const iv of intervals) {
    const start = Math.max(iv.start, window.start);
    const end = Math.min(iv.end, window.end);
    if (end <= start) continue;
    edges.push({ t: start, kind: iv.kind, delta: 1 }, { t: end, kind: iv.kind, delta: -1 });
  }
  edges.sort((a, b) => a.t - b.t);
  const open = { model: 0, job: 0 };
  const account = (from: number, to: number) => {
    if (to <= from) return;
    const ms = to - from;
    if (open.model > 0 && open.job > 0) out.bothMs += ms;
    else if (open.model > 0) out.modelOnlyMs += ms;
    else if (open.job > 0) out.jobsOnlyMs += ms;
    else {
      out.idleMs += ms;
      // Every edge opens or closes an interval of some length, so idle stretches never touch: each is whole.
      if (!out.longestIdle || ms > out.longestIdle.ms) out.longestIdle = { start: from, end: to, ms };
    }
  };
  let t = window.start;
  for (const e of edges) {
    account(t, e.t);
    open[e.kind] += e.delta;
    t = e.t;
  }
  account(t, window.end);
  if (out.wallMs > 0) out.idleFraction = out.idleMs / out.wallMs;
  return out;
}
