import { setHandler } from '@temporalio/workflow';
import { guardUpdate } from './guard-handler';
import { checkGoalSpec, checkGoalStop, goalEvent, newGoal } from './goals';
import { goalUpdate, scheduleUpdate, type GoalReply, type GoalRequest, type ScheduleReply, type ScheduleRequest } from './long-run-messages';
import { parseSchedule } from './schedules';
import type { SessionState } from './session-state';

/** Longest instruction a schedule may carry; it is re-sent on every tick. */
const MAX_INSTRUCTION_CHARS = 4000;
/** Schedules a session may hold at once. */
const MAX_SCHEDULES = 20;

/** Goal and schedule requests; each change is made once its event is logged (emit's commit), before the reply. */
export function installLongRunHandlers(s: SessionState): void {
  setHandler(goalUpdate, guardUpdate(s, (req: GoalRequest) => onGoal(s, req).finally(() => s.long.version++)));
  setHandler(scheduleUpdate, guardUpdate(s, (req: ScheduleRequest) => onSchedule(s, req).finally(() => s.long.version++)));
}

async function onGoal(s: SessionState, req: GoalRequest): Promise<GoalReply> {
  const now = Date.now();
  const view = (): GoalReply => {
    const g = s.long.goal;
    return { ok: true, goal: g && { ...g, secondsUsed: Math.floor((now - g.setAt) / 1000) } };
  };
  const g = s.long.goal;
  const live = g && (g.status === 'active' || g.status === 'paused') ? g : null;
  switch (req.action) {
    case 'get':
      return view();
    case 'create': {
      if (live) return { ok: false, reason: 'a goal is already set; clear it first (goal.clear())' };
      const bad = checkGoalSpec(req.spec);
      if (bad) return { ok: false, reason: bad };
      const created = newGoal(req.spec, now);
      await s.emit(() => [goalEvent(created, 'set', now)], () => (s.long.goal = created));
      return view();
    }
    case 'resume':
      if (!live) return { ok: false, reason: 'there is no open goal' };
      await s.emit(() => [goalEvent({ ...live, status: 'active' }, 'resumed', now)], () => (live.status = 'active'));
      return view();
    default: {
      const refused = checkGoalStop(live, req.action, req.by);
      if (refused) {
        if (live) await s.emit(() => [goalEvent(live, 'refused', now, refused)]);
        return { ok: false, reason: refused };
      }
      const g = live!;
      if (req.action === 'complete') {
        await s.emit(() => [goalEvent({ ...g, status: 'complete' }, 'completed', now, req.evidence || null)], () => (g.status = 'complete'));
        return view();
      }
      const status = req.action === 'pause' ? 'paused' : 'cleared';
      await s.emit(() => [goalEvent({ ...g, status }, status, now)], () => (g.status = status));
      return view();
    }
  }
}

async function onSchedule(s: SessionState, req: ScheduleRequest): Promise<ScheduleReply> {
  const list = (): ScheduleReply => ({ ok: true, schedules: s.long.activeSchedules() });
  if (req.action === 'list') return list();
  if (req.action === 'cancel') {
    const sch = s.long.activeSchedules().find((x) => x.id === req.id);
    if (!sch) return { ok: false, reason: `no active schedule "${req.id}"` };
    await s.emit(() => [{ type: 'ScheduleChanged', scheduleId: sch.id, change: 'cancelled', kind: sch.kind, spec: sch.spec, instruction: sch.instruction, nextRunAt: null }], () => (sch.nextRunAt = null));
    return list();
  }
  if (!req.instruction?.trim()) return { ok: false, reason: 'a schedule needs a non-empty instruction' };
  if (req.instruction.length > MAX_INSTRUCTION_CHARS) return { ok: false, reason: `the instruction is over ${MAX_INSTRUCTION_CHARS} characters` };
  if (s.long.activeSchedules().length >= MAX_SCHEDULES) return { ok: false, reason: `a session holds at most ${MAX_SCHEDULES} schedules; cancel one first` };
  const parsed = parseSchedule(req.spec ?? '', Date.now());
  if ('error' in parsed) return { ok: false, reason: parsed.error };
  const sch = { id: '', kind: parsed.kind, spec: req.spec.trim(), instruction: req.instruction, nextRunAt: parsed.nextRunAt, runCount: 0 };
  await s.emit(() => {
    // Numbered in turn with other appends, so two adds at once get two ids.
    sch.id = `s${s.long.schedulesAdded + 1}`;
    return [{ type: 'ScheduleChanged', scheduleId: sch.id, change: 'added', kind: sch.kind, spec: sch.spec, instruction: sch.instruction, nextRunAt: sch.nextRunAt }];
  }, () => {
    s.long.schedulesAdded++;
    s.long.schedules.push(sch);
  });
  return list();
}
