/*
 * Keep-going policy at a turn's end: goals, autonomous mode and its gates, schedules.
 * Deterministic: workflow time and workflow timers only, every change logged via emit.
 */
import { condition, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SessionActivities } from '../activities/session-activities';
import { goalContinuationText, goalEvent, goalTurnCapText } from './goals';
import { hostTaskQueue } from './hosts/host-queue';
import { HOST_LOST_AFTER } from './proxies';
import { nextWake, takeDue, type DueTick } from './schedules';
import type { SessionState } from './session-state';
import type { ContinuationInjected } from '../schemas/generated/events';

const AUTONOMOUS_TEXT = '[autonomous] Keep working: you are running unattended, nobody will answer questions. Pick the next most useful step toward the task and take it.';

/**
 * Logs the goal a session was started with (first run only). Without autonomous mode the run's
 * turn cap is its only end short of the goal, so the event says so rather than leave it silent.
 */
export async function logInputGoal(s: SessionState): Promise<void> {
  const g = s.long.goal;
  const cap = s.input.autonomous ? null : goalTurnCapText(s.input.limits.maxTurns);
  if (s.long.goalFromInput && g) await s.emit(() => [goalEvent(g, 'set', Date.now(), cap)]);
}

/**
 * Logs each human record a research task's feed has released by now, then each schedule that
 * came due (missed ticks coalesced into one firing), so the next prompt shows them; the book and
 * the schedules move on once that is logged.
 */
export async function fireDueSchedules(s: SessionState): Promise<void> {
  const research = s.research;
  if (research?.nextRelease(s.startedAt) != null) {
    let released: ReturnType<typeof research.releaseDue> | null = null;
    await s.emit(() => (released = research.releaseDue(s.startedAt, Date.now())).events, () => released?.commit());
  }
  let due: DueTick[] = [];
  await s.emit(() => {
    due = takeDue(s.long.schedules.map((sch) => ({ ...sch })), Date.now());
    return due.flatMap(({ schedule: sch, dueAt, missed }) => [
      { type: 'ScheduleFired' as const, scheduleId: sch.id, instruction: sch.instruction, dueAt, missed, runCount: sch.runCount },
      ...(sch.nextRunAt === null ? [{
        type: 'ScheduleChanged' as const, scheduleId: sch.id, change: 'finished' as const, kind: sch.kind, spec: sch.spec,
        instruction: sch.instruction, nextRunAt: null,
      }] : []),
    ]);
  }, () => {
    for (const { schedule } of due) {
      const held = s.long.schedules.find((sch) => sch.id === schedule.id);
      if (held) Object.assign(held, { nextRunAt: schedule.nextRunAt, runCount: schedule.runCount });
    }
  });
}

/**
 * A turn ended with an answer: whether the session goes on. An open goal or autonomous mode
 * injects a continuation (gates decide in autonomous mode); an active schedule idles the session
 * on a durable timer until its tick or a message, and a queued or running job (or an experiment it
 * asked the root for) until its end.
 * Otherwise the answer ends the session.
 */
export async function afterAnswer(s: SessionState): Promise<'continue' | 'end'> {
  // What follows may wait (gates, schedules, work): the cell that answered is in the log first.
  await s.flush();
  const { goal } = s.long;
  const auto = s.input.autonomous;
  if ((goal && s.long.goalOpen()) || (auto && auto.gates.length === 0)) await settle(s);
  if (goal && s.long.goalOpen()) return inject(s, 'goal', goalContinuationText(goal, Date.now()));
  if (auto) {
    if (auto.gates.length === 0) return inject(s, 'autonomous', AUTONOMOUS_TEXT);
    const round = ++s.long.gateRounds;
    // A gate runs the agent's code: in the session's sandbox, so on its host, where its workspace and policy are.
    const host = s.host === null ? {} : { taskQueue: hostTaskQueue(workflowInfo().taskQueue, s.host), scheduleToStartTimeout: HOST_LOST_AFTER };
    const gates = proxyActivities<Pick<SessionActivities, 'runGate'>>({
      ...host,
      startToCloseTimeout: `${auto.gateTimeoutSeconds + 60} seconds`,
      // A check, so a worker lost under it runs it again; its heartbeat tells that sooner than its timeout would.
      heartbeatTimeout: '10 seconds',
      retry: { maximumAttempts: 3 },
    });
    for (const command of auto.gates) {
      const r = await gates.runGate({ sessionId: s.id, command, timeoutSeconds: auto.gateTimeoutSeconds, cwd: auto.gateCwd });
      await s.emit(() => [{ type: 'GateChecked', command, attempt: round, ...r }]);
      if (!r.passed) return inject(s, 'gate_failed', `[quality gate failed] \`${command}\` exited ${r.exitCode ?? 'without a status'}. Fix it and carry on; the gates run again when you next finish.\n${r.output}`);
    }
    return 'end';
  }
  for (;;) {
    // A feed release wakes a session that waits anyway; it keeps none alive on its own.
    if (nextWake(s.long.schedules) === null && !waitsOnWork(s)) return 'end';
    const wake = wakeAt(s);
    if ((wake !== null && wake <= Date.now()) || s.inbox.length > 0) return 'continue';
    // A workflow timer: it fires on time even if no worker runs then; the next worker picks it up.
    // An operator's schedule or goal change wakes it early, to re-plan; a job's end (the
    // executor's signal, logged as JobEnded) wakes it to read the result.
    const seen = s.long.version;
    const ended = s.jobs.ended;
    const news = await idle(s, () => s.inbox.length > 0 || s.long.version !== seen || s.jobs.ended !== ended);
    if (s.long.goalOpen()) return afterAnswer(s);
    if (!news || s.inbox.length > 0 || s.jobs.ended !== ended) return 'continue';
  }
}

/**
 * With sub-agents or jobs still running and nothing new to read, a continuation waits (durably)
 * for their news or the next scheduled tick instead of spinning the model on an unchanged prompt.
 */
async function settle(s: SessionState): Promise<void> {
  const running = () => [...s.children.values()].some((c) => c.status === 'running') || waitsOnWork(s);
  if (!running() || s.inbox.length > 0) return;
  const ended = s.jobs.ended;
  await idle(s, () => s.inbox.length > 0 || !running() || s.jobs.ended !== ended);
}

/** Jobs of its own queued or running, or experiments it asked its research tree's root for: their ends wake it. */
function waitsOnWork(s: SessionState): boolean {
  return s.jobs.active().length > 0 || s.awaited.size > 0;
}

/** The next scheduled tick or human record of a research task's feed (epoch ms); null: none. */
function wakeAt(s: SessionState): number | null {
  const times = [nextWake(s.long.schedules), s.research?.nextRelease(s.startedAt) ?? null].filter((t): t is number => t !== null);
  return times.length > 0 ? Math.min(...times) : null;
}

/** Waits until `news` (true), or the next scheduled tick or feed release or the session's or goal's deadline (false). */
async function idle(s: SessionState, news: () => boolean): Promise<boolean> {
  const { maxSeconds } = s.input.limits;
  const g = s.long.goal;
  const ends = [
    wakeAt(s),
    maxSeconds === null ? null : s.startedAt + maxSeconds * 1000,
    g?.status === 'active' && g.secondsBudget !== null ? g.setAt + g.secondsBudget * 1000 : null,
  ].filter((t): t is number => t !== null);
  s.phase = 'idle';
  if (ends.length === 0) {
    await condition(news);
    return true;
  }
  return condition(news, Math.max(Math.min(...ends) - Date.now(), 1));
}

export async function inject(s: SessionState, reason: ContinuationInjected['reason'], text: string): Promise<'continue'> {
  const count = s.long.continuations + 1;
  await s.emit(() => [{ type: 'ContinuationInjected', reason, count, text }], () => (s.long.continuations = count));
  return 'continue';
}
