import type { Schedule, ScheduleKind } from './long-run-types';

/** Shortest heartbeat interval: a tighter loop would only burn tokens. */
export const MIN_INTERVAL_MS = 1000;
/** How far ahead a cron expression's next match is searched. */
const CRON_HORIZON_MS = 366 * 24 * 3600 * 1000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export interface ParsedSchedule {
  kind: ScheduleKind;
  /** First tick after `now`. */
  nextRunAt: number;
}

/**
 * Reads a schedule spec: `in 10m`, `at 2026-01-01T00:00:00Z`, `every 30s` (a heartbeat), or a
 * 5-field UTC cron expression (`*`, lists, ranges, steps). Pure; returns why when it cannot.
 */
export function parseSchedule(spec: string, now: number): ParsedSchedule | { error: string } {
  const s = spec.trim();
  const dur = /^(in|every)\s+(\d+(?:\.\d+)?)\s*([smhd])$/.exec(s);
  if (dur) {
    const ms = Number(dur[2]) * UNIT_MS[dur[3]];
    if (ms < MIN_INTERVAL_MS) return { error: `schedule "${spec}": the interval must be at least ${MIN_INTERVAL_MS / 1000}s` };
    return { kind: dur[1] === 'in' ? 'once' : 'every', nextRunAt: now + ms };
  }
  if (s.startsWith('at ')) {
    const t = Date.parse(s.slice(3).trim());
    if (Number.isNaN(t)) return { error: `schedule "${spec}": "${s.slice(3).trim()}" is not an ISO 8601 time` };
    return { kind: 'once', nextRunAt: Math.max(t, now) };
  }
  const cron = parseCron(s);
  if ('error' in cron) return { error: `schedule "${spec}": ${cron.error}; expected "in 10m", "every 5m", "at <ISO time>" or a 5-field cron expression` };
  const next = nextCronTick(cron.fields, now);
  return next === null ? { error: `schedule "${spec}": the cron expression never matches within a year` } : { kind: 'cron', nextRunAt: next };
}

/** The first tick strictly after `after`, for a schedule that repeats; null when it is done. Pure. */
export function tickAfter(sch: Pick<Schedule, 'kind' | 'spec'>, after: number): number | null {
  if (sch.kind === 'once') return null;
  if (sch.kind === 'every') {
    const p = parseSchedule(sch.spec, 0);
    return 'error' in p ? null : after + p.nextRunAt;
  }
  const cron = parseCron(sch.spec.trim());
  return 'error' in cron ? null : nextCronTick(cron.fields, after);
}

export interface DueTick {
  schedule: Schedule;
  dueAt: number;
  /** Ticks after `dueAt` that also came due and are coalesced into this firing. */
  missed: number;
}

/**
 * Fires each due schedule once however many of its ticks passed (missed ticks coalesce), and
 * moves it to its first tick after `now`. Mutates the schedules it fires; pure otherwise.
 */
export function takeDue(schedules: Schedule[], now: number): DueTick[] {
  const due: DueTick[] = [];
  for (const sch of schedules) {
    if (sch.nextRunAt === null || sch.nextRunAt > now) continue;
    const dueAt = sch.nextRunAt;
    let missed = 0;
    let next = tickAfter(sch, dueAt);
    // Counting stops at a bound: a heartbeat left alone for days is still one firing.
    while (next !== null && next <= now && missed < 10_000) {
      missed++;
      next = tickAfter(sch, next);
    }
    if (next !== null && next <= now) next = tickAfter(sch, now);
    sch.nextRunAt = next;
    sch.runCount++;
    due.push({ schedule: sch, dueAt, missed });
  }
  return due;
}

/** When the earliest schedule fires next, or null when none will. */
export function nextWake(schedules: readonly Schedule[]): number | null {
  const times = schedules.map((s) => s.nextRunAt).filter((t): t is number => t !== null);
  return times.length ? Math.min(...times) : null;
}

type CronFields = [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
const CRON_RANGES: Array<[number, number]> = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 6]];

function parseCron(s: string): { fields: CronFields } | { error: string } {
  const parts = s.split(/\s+/);
  if (parts.length !== 5) return { error: `not a 5-field cron expression` };
  const fields: Set<number>[] = [];
  for (let i = 0; i < 5; i++) {
    const [lo, hi] = CRON_RANGES[i];
    const set = new Set<number>();
    for (const item of parts[i].split(',')) {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
      if (!m) return { error: `cron field "${parts[i]}" is not understood` };
      const from = m[1] === '*' ? lo : Number(m[2]);
      const to = m[1] === '*' ? hi : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? hi : from;
      const step = m[4] !== undefined ? Number(m[4]) : 1;
      if (from < lo || to > hi || from > to || step < 1) return { error: `cron field "${parts[i]}" is out of range ${lo}-${hi}` };
      for (let v = from; v <= to; v += step) set.add(i === 4 && v === 7 ? 0 : v);
    }
    fields.push(set);
  }
  return { fields: fields as CronFields };
}

/**
 * First whole UTC minute after `after` that the fields match; skips whole days and hours that
 * cannot. As in standard cron, a day matches either day field when both are restricted
 * ("0 9 13 * 5": the 13th and every Friday), and both when one of them is all days.
 */
function nextCronTick([min, hour, dom, mon, dow]: CronFields, after: number): number | null {
  const bothRestricted = dom.size < 31 && dow.size < 7;
  const dayMatches = (d: Date) => (bothRestricted
    ? dom.has(d.getUTCDate()) || dow.has(d.getUTCDay())
    : dom.has(d.getUTCDate()) && dow.has(d.getUTCDay()));
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  const end = after + CRON_HORIZON_MS;
  while (t <= end) {
    const d = new Date(t);
    if (!mon.has(d.getUTCMonth() + 1) || !dayMatches(d)) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    } else if (!hour.has(d.getUTCHours())) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
    } else if (!min.has(d.getUTCMinutes())) {
      t += 60_000;
    } else {
      return t;
    }
  }
  return null;
}
