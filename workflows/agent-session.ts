/*
 * The agent-session workflow: the RLM loop, durable. Deterministic code only: no I/O, no clocks
 * but the workflow's, no Node modules. Everything it does to the world goes through activities;
 * prompts are rebuilt by the model activity from the log, never carried here (O(steps) history).
 */
import {
  ActivityFailure, ApplicationFailure, CancellationScope, ContinueAsNew, allHandlersFinished, condition, continueAsNew,
  isCancellation, workflowInfo,
} from '@temporalio/workflow';
import { endedByPolicy } from './approvals/policy-end';
import { awaitSpendApproval } from './approvals/spend-gate';
import { retainsAfter } from './decide-idle-unload';
import { describeFault, finish } from './end-session';
import { maybeAutoRefine } from './harness/auto-refine';
import { installHandlers } from './handlers';
import { afterAnswer, fireDueSchedules, logInputGoal } from './keep-going';
import { awaitOutsideChangesApproval } from './approvals/sensitive-gate';
import { installLongRunHandlers } from './long-run-handlers';
import { installJobHandlers } from './jobs/job-handlers';
import { installResearchHandlers } from './research/research-handlers';
import { seedRoles } from './research/seed-roles';
import { failureKind } from './plan-next-step';
import { placedActivities } from './placement';
import { sessionActivities } from './proxies';
import { awaitWork, retain } from './retain';
import { rejectReply } from './reject-reply';
import { appendFailed } from './session-log';
import { SessionState } from './session-state';
import type { SessionInput, SessionResult } from './session-types';
import { completed, started } from './session-event-fields';
import { installOperatorHandlers } from './operator-handlers';
import type { RunCellInput } from '../activities/session-activities';
import type { RunStepsResult } from '../activities/step-loop/steps-types';
import { runRequestedCell, type RequestedCell } from './run-requested-cell';
import { runWorkerSteps } from './worker-steps';
import { snapshotBesideModel, snapshotKernel } from './snapshot-kernel';
import { startFork } from './start-fork';
import { throttleOf, waitOutThrottle } from './throttle-wait';
import { cellAsked, modelCalled } from './step-events';
import { budgetEvents } from './tree-budget';
import { logCellEnd, logWorkspace } from './workspace-log';
import { callModelFor, reachedLimit, wrapUp } from './wrap-up';

type Acts = ReturnType<typeof sessionActivities>;
/** How the loop ended; `logged` when the end is in the log already (a retained task's end that could not be logged as it was). */
type Ended = { result: SessionResult; logged?: SessionResult | null };

export async function agentSessionWorkflow(input: SessionInput): Promise<SessionResult> {
  const unplaced = sessionActivities(input.limits.cellTimeoutSeconds);
  const s = new SessionState(input, unplaced);
  const acts = placedActivities(s, unplaced);
  // A handler's fault (a failed append, a bug) stops the loop wherever it waits, so the end is logged.
  const body = new CancellationScope();
  s.onFault = () => body.cancel();
  installHandlers(s, agentSessionWorkflow, acts);
  installLongRunHandlers(s);
  installJobHandlers(s);
  installResearchHandlers(s);
  installOperatorHandlers(s, acts);
  let ended: Ended;
  let cancelled: unknown;
  try {
    ended = await body.run(() => loop(s, acts));
  } catch (e) {
    if (e instanceof ContinueAsNew) throw e;
    const fault = s.fault ?? (isCancellation(e) ? null : describeFault(e));
    if (fault === null) cancelled = e;
    ended = { result: fault === null
      ? { status: 'failed', kind: 'cancelled', reason: 'the session was cancelled' }
      : { status: 'failed', kind: 'internal', reason: fault } };
  }
  const logged = await CancellationScope.nonCancellable(() => finish(s, ended.result, acts, ended.logged));
  // Temporal's own status agrees with the log: a failed session is a failed (or cancelled) workflow.
  if (cancelled) throw cancelled;
  if (logged === null) {
    throw ApplicationFailure.create({ type: 'SessionEndNotLogged', message: `${ended.result.status === 'failed' ? ended.result.reason : 'completed'}; its end could not be logged`, nonRetryable: true });
  }
  if (logged.status === 'failed') throw ApplicationFailure.create({ type: logged.kind, message: logged.reason, nonRetryable: true });
  return logged;
}

async function loop(s: SessionState, acts: Acts): Promise<Ended> {
  const { input } = s;
  // Cancelled, or a fault: steps the worker runs stop, and the loop goes on once their result is applied.
  CancellationScope.current().cancelRequested.catch(() => s.stepsInFlight?.stop());
  if (!input.carry) {
    if (input.fork) await startFork(s, input.fork);
    else await seedRoles(s, await s.emit(() => [started(input), ...budgetEvents(s)]));
    await logWorkspace(s, acts, 'start');
  }
  await logInputGoal(s);
  for (;;) {
    const outcome = s.retained?.idle ? await awaitWork(s, s.retained, acts) : await runTurns(s, acts);
    if (outcome === 'continue') {
      // What the run's last cell changed is checked here: the next run starts with nothing to check.
      const denied = endedByPolicy(s) ?? await awaitOutsideChangesApproval(s);
      if (denied) return { result: denied };
      await s.flush();
      await condition(allHandlersFinished);
      return continueAsNew<typeof agentSessionWorkflow>({ ...input, carry: s.carry() });
    }
    if (outcome === 'work') continue;
    if (!retainsAfter(input, outcome, s.retained)) return { result: outcome };
    const logged = await retain(s, outcome, acts);
    if (logged !== outcome) return { result: outcome, logged };
  }
}

async function runTurns(s: SessionState, acts: Acts): Promise<SessionResult | 'continue'> {
  for (;;) {
    const stop = await reachedLimit(s, acts);
    if (stop) return wrapUp(s, acts, stop);
    const refused = endedByPolicy(s) ?? await awaitSpendApproval(s) ?? await awaitOutsideChangesApproval(s);
    if (refused) return refused;
    await s.deliver('prompt');
    await fireDueSchedules(s);
    s.phase = 'model';
    // Plain steps the worker runs, when nothing needs the workflow at each turn (worker-steps.ts).
    // Stopped before it took one (something reached the workflow at once), this turn is the workflow's.
    const ran = tookSteps(await runWorkerSteps(s, acts));
    /** The seq of the CellExecuted this turn logged; null when the steps logged every cell's end themselves. */
    let cellDone: number | null = null;
    if (ran?.throttled) {
      await waitOutThrottle(s, ran.throttled);
      continue;
    }
    if (ran?.modelFailed) return { status: 'failed', kind: failureKind(ran.modelFailed.type), reason: ran.modelFailed.message };
    if (ran?.cellLeft) cellDone = await cellStep(s, acts, ran.cellLeft, { sent: ran.cellLeft.sent, restored: ran.cellLeft.restored ?? null });
    else if (ran?.cellEnded) cellDone = await logCellEnd(s, acts, ran.cellEnded, null);
    else if (ran && !ran.reply) {
      // The steps logged all they did (the allowance ended at an auto-refine's turn, or a later
      // attempt adopted what a lost one logged): the turn ends below, where a final() that their
      // last cell set is seen before anything else.
    } else {
      const call = callModelFor(s, acts, ran?.reply ?? undefined);
      const snapshot = ran ? null : snapshotBesideModel(s, acts, call);
      let reply;
      try {
        // Settled before anything else: the next cell must find the kernel as the snapshot left it.
        reply = await call.finally(() => snapshot);
      } catch (e) {
        const throttled = throttleOf(e);
        if (throttled) {
          // The turn starts over once the wait is out: a time budget that ran out meanwhile ends it there.
          await waitOutThrottle(s, throttled);
          continue;
        }
        // The batch it carried could not be logged: a fault, as any failed append is.
        if (!(e instanceof ActivityFailure) || isCancellation(e) || appendFailed(e)) throw e;
        const cause = e.cause instanceof ApplicationFailure ? e.cause : undefined;
        return { status: 'failed', kind: failureKind(cause?.type ?? undefined), reason: cause?.message ?? e.cause?.message ?? e.message };
      }
      const turn = s.turn;
      const { code, codeBlob } = reply;
      const rejected = await rejectReply(s, reply);
      if (rejected === 'again') continue;
      if (rejected) return rejected;
      if (code === null) {
        await s.emit(() => [modelCalled(turn, reply)], () => s.turn++);
        if (await afterAnswer(s) === 'end') return endedByPolicy(s) ?? await awaitOutsideChangesApproval(s) ?? completed(reply.answer ?? '', reply.answerBlob);
        if (continueDue(s)) return 'continue';
        continue;
      }
      // The reply and the cell it asks for go to the log in one append, and the cell's activity
      // makes it before it runs the cell (SessionLog.ride): no append activity of their own.
      const reqSeq = 1 + await s.ride((seq) => cellAsked(turn, reply, code, (s.ops.cellInFlight = `${s.id}/${seq + 1}`)), () => s.turn++);
      cellDone = await cellStep(s, acts, { requestId: `${s.id}/${reqSeq}`, reqSeq, code, codeBlob }, null);
    }
    if (cellDone !== null && ++s.cellsSinceSnapshot >= s.input.limits.snapshotEveryCells) {
      if (s.snapshotBesideModel) s.snapshotDue = true;
      // Runs from before the snapshot went beside the model call take it here.
      else await snapshotKernel(s, acts, cellDone, { rides: true });
    }
    await maybeAutoRefine(s);
    const answer = s.final;
    s.final = null;
    if (answer !== null && await afterAnswer(s) === 'end') return endedByPolicy(s) ?? await awaitOutsideChangesApproval(s) ?? completed(answer.answer, answer.answerBlob ?? null);
    if (continueDue(s)) return 'continue';
  }
}

/** The worker's steps, unless they returned having done nothing the workflow must carry on with. */
const tookSteps = (r: RunStepsResult | null): RunStepsResult | null =>
  (r && (r.reply || r.cellLeft || r.cellEnded || r.modelFailed || r.throttled || r.done.calls.length > 0) ? r : null);

/** Whether this run has taken its share of turns (or Temporal suggests it): the session continues as new. */
const continueDue = (s: SessionState): boolean => workflowInfo().continueAsNewSuggested || s.turn % s.input.limits.turnsPerRun === 0;

/** Runs a logged CellRequested's cell (one the worker's steps left in flight: resumed) and logs its end; resolves to the CellExecuted's seq. */
async function cellStep(s: SessionState, acts: Acts, c: RequestedCell, leftByLoop: RunCellInput['leftByLoop']): Promise<number> {
  const { cell, restored, scanned } = await runRequestedCell(s, acts, c, leftByLoop);
  return logCellEnd(s, acts, { requestId: c.requestId, code: c.code, cell, restored }, scanned);
}
