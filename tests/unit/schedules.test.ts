import { nextWake, parseSchedule, takeDue, tickAfter } from '../../workflows/schedules';
import type { Schedule } from '../../workflows/long-run-types';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0); // a Thursday
const sched = (spec: string, now = T0): Schedule => {
  const p = parseSchedule(spec, now);
  if ('error' in p) throw new Error(p.error);
  return { id: 's1', kind: p.kind, spec, instruction: 'tick', nextRunAt: p.nextRunAt, runCount: 0 };
};

describe('parseSchedule', () => {
  it.each([
    ['in 10m', 'once', T0 + 600_000],
    ['every 30s', 'every', T0 + 30_000],
    ['every 2h', 'every', T0 + 7_200_000],
    ['at 2026-01-02T00:00:00Z', 'once', Date.UTC(2026, 0, 2)],
    ['*/15 * * * *', 'cron', T0 + 15 * 60_000],
    ['0 9 * * 1-5', 'cron', Date.UTC(2026, 0, 2, 9)],
    ['30 8 1 * *', 'cron', Date.UTC(2026, 1, 1, 8, 30)],
    // Both day fields restricted: the 13th or a Friday (standard cron), so Friday the 2nd, not Friday the 13th of February.
    ['0 9 13 * 5', 'cron', Date.UTC(2026, 0, 2, 9)],
  ])('reads %s as a %s schedule with the right first tick', (spec, kind, first) => {
    expect(parseSchedule(spec, T0)).toEqual({ kind, nextRunAt: first });
  });

  it('fires a past `at` time at once rather than never', () => {
    expect(parseSchedule('at 2020-01-01T00:00:00Z', T0)).toEqual({ kind: 'once', nextRunAt: T0 });
  });

  it.each([
    ['every 0s', /at least 1s/],
    ['every 5 fortnights', /5-field cron/],
    ['at tomorrow-ish', /not an ISO 8601 time/],
    ['61 * * * *', /out of range 0-59/],
    ['* * 31 2 *', /never matches within a year/],
    ['', /5-field cron/],
  ])('refuses %j, saying why', (spec, why) => {
    const p = parseSchedule(spec, T0);
    expect('error' in p && p.error).toMatch(why);
  });
});

describe('takeDue', () => {
  it('fires nothing before the tick and a one-shot once, then never again', () => {
    const s = sched('in 1m');
    expect(takeDue([s], T0 + 59_000)).toEqual([]);
    expect(takeDue([s], T0 + 61_000)).toEqual([{ schedule: s, dueAt: T0 + 60_000, missed: 0 }]);
    expect(s.nextRunAt).toBeNull();
    expect(takeDue([s], T0 + 3_600_000)).toEqual([]);
  });

  it('coalesces the ticks a heartbeat missed into one firing and moves to the first tick after now', () => {
    const s = sched('every 10s');
    const [fired] = takeDue([s], T0 + 45_000);
    expect(fired).toMatchObject({ dueAt: T0 + 10_000, missed: 3 });
    expect(s).toMatchObject({ nextRunAt: T0 + 50_000, runCount: 1 });
    expect(takeDue([s], T0 + 49_000)).toEqual([]);
  });

  it('coalesces a cron schedule too', () => {
    const s = sched('0 * * * *');
    const [fired] = takeDue([s], T0 + 3.5 * 3_600_000);
    expect(fired).toMatchObject({ dueAt: T0 + 3_600_000, missed: 2 });
    expect(s.nextRunAt).toBe(T0 + 4 * 3_600_000);
  });

  it('wakes for the earliest active schedule', () => {
    const a = sched('in 5m');
    const b = sched('every 1m');
    expect(nextWake([a, b])).toBe(T0 + 60_000);
    expect(nextWake([{ ...a, nextRunAt: null }])).toBeNull();
    expect(tickAfter(a, T0)).toBeNull();
  });
});
