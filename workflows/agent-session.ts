/*
 * The agent-session workflow: the RLM loop, durable. Deterministic code only: no I/O, no clocks
 * but the workflow's, no Node modules. Everything it does to the world goes through activities;
 * prompts are rebuilt by the model activity from the log, never carried here (O(steps) history).
 */
import {
  ActivityFailure, ApplicationFailure, CancellationScope, allHandlersFinished, condition, continueAsNew,
  getExternalWorkflowHandle, isCancellation, workflowInfo,
} from '@temporalio/workflow';
import { retainsAfter } from './decide-idle-unload';
import { maybeAutoRefine } from './harness/auto-refine';
import { installHandlers } from './handlers';
import { afterAnswer, fireDueSchedules, logInputGoal } from './keep-going';
import { installLongRunHandlers } from './long-run-handlers';
import { failureKind } from './plan-next-step';
import { sessionActivities } from './proxies';
import { awaitWork, endTask, retain } from './retain';
import { SessionState } from './session-state';
import type { BlobRef } from '../schemas/generated/events';
import type { SessionInput, SessionResult } from './session-types';
import { snapshotKernel } from './snapshot-kernel';
import { callModelFor, reachedLimit, wrapUp } from './wrap-up';

export async function agentSessionWorkflow(input: SessionInput): Promise<SessionResult> {
  const acts = sessionActivities(input.limits.cellTimeoutSeconds);
  const s = new SessionState(input, acts);
  installHandlers(s, agentSessionWorkflow);
  installLongRunHandlers(s);
  let result: SessionResult;
  let cancelled: unknown;
  try {
    if (!input.carry) await s.emit(() => [started(input)]);
    await logInputGoal(s);
    for (;;) {
      const outcome = s.retained?.idle ? await awaitWork(s, s.retained, acts) : await runTurns(s, acts);
      if (outcome === 'continue') {
        await condition(allHandlersFinished);
        return continueAsNew<typeof agentSessionWorkflow>({ ...input, carry: s.carry() });
      }
      if (outcome === 'work') continue;
      if (!retainsAfter(input.parentId, outcome, s.retained)) {
        result = outcome;
        break;
      }
      await retain(s, outcome);
    }
  } catch (e) {
    if (!isCancellation(e)) throw e;
    cancelled = e;
    result = { status: 'failed', kind: 'cancelled', reason: 'the session was cancelled' };
  }
  await CancellationScope.nonCancellable(() => finish(s, result, acts));
  // Temporal's own status agrees with the log: a failed session is a failed (or cancelled) workflow.
  if (cancelled) throw cancelled;
  if (result.status === 'failed') throw ApplicationFailure.create({ type: result.kind, message: result.reason, nonRetryable: true });
  return result;
}

async function runTurns(s: SessionState, acts: ReturnType<typeof sessionActivities>): Promise<SessionResult | 'continue'> {
  const { input } = s;
  for (;;) {
    const stop = await reachedLimit(s);
    if (stop) return wrapUp(s, acts, stop);
    await s.deliver('prompt');
    await fireDueSchedules(s);
    s.phase = 'model';
    let reply;
    try {
      reply = await callModelFor(s, acts);
    } catch (e) {
      if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
      const cause = e.cause instanceof ApplicationFailure ? e.cause : undefined;
      return { status: 'failed', kind: failureKind(cause?.type ?? undefined), reason: cause?.message ?? e.cause?.message ?? e.message };
    }
    const turn = s.turn++;
    const { code, codeBlob } = reply;
    if (code === null) {
      await s.emit(() => [{ type: 'ModelCalled', turn, ...reply.event }]);
      if (await afterAnswer(s) === 'end') return completed(reply.answer ?? '', reply.answerBlob);
      if (workflowInfo().continueAsNewSuggested || s.turn % input.limits.turnsPerRun === 0) return 'continue';
      continue;
    }
    // The reply and the cell it asks for go to the log in one append: one round trip less per step.
    const reqSeq = 1 + await s.emit((seq) => [
      { type: 'ModelCalled', turn, ...reply.event },
      { type: 'CellRequested', cellId: `${s.id}/${seq + 1}`, code, codeBlob, toolCallId: reply.toolCallId },
    ]);
    s.phase = 'cell';
    const requestId = `${s.id}/${reqSeq}`;
    const { cell, restored } = await acts.runCell({
      sessionId: s.id, rootId: input.rootId, cellId: requestId, code, codeBlob, timeoutSeconds: input.limits.cellTimeoutSeconds,
      firstCell: s.long.cellsRun++ === 0, restoreFrom: s.lastSnapshot, throughSeq: reqSeq,
    }).catch(async (e: unknown) => {
      if (!(e instanceof ActivityFailure)) throw e;
      if (!isCancellation(e)) return { cell: interrupted(e.cause?.message ?? e.message), restored: null };
      // Every CellRequested gets its CellExecuted, even when the session is cancelled mid-cell.
      const lost = interrupted('the session was cancelled');
      await CancellationScope.nonCancellable(() => s.emit(() => [{ type: 'CellExecuted', requestId, code, ...lost }]));
      throw e;
    });
    if (restored) await s.emit(() => [{ type: 'KernelRestored', ...restored }]);
    const doneSeq = await s.emit(() => [{ type: 'CellExecuted', requestId, code, ...cell }]);
    if (++s.cellsSinceSnapshot >= input.limits.snapshotEveryCells) await snapshotKernel(s, acts, doneSeq);
    await maybeAutoRefine(input, s.turn);
    const answer = s.final;
    s.final = null;
    if (answer !== null && await afterAnswer(s) === 'end') return completed(answer.answer, answer.answerBlob ?? null);
    if (workflowInfo().continueAsNewSuggested || s.turn % input.limits.turnsPerRun === 0) return 'continue';
  }
}

/** The ref rides along only when the answer is a preview, so a short answer's result is just its text. */
const completed = (answer: string, answerBlob: BlobRef | null): SessionResult =>
  ({ status: 'completed', answer, ...(answerBlob && { answerBlob }) });

/** A cell whose run was lost (worker or kernel died): reported, never silently re-run. */
function interrupted(why: string) {
  return {
    status: 'interrupted' as const, outputs: `[the cell was interrupted and not re-run: ${why}]`,
    durationMs: 0, errorName: 'CellInterrupted', errorValue: why,
  };
}

function started(input: SessionInput) {
  return {
    type: 'SessionStarted' as const, task: input.task, taskBlob: input.taskBlob ?? null, name: input.name, model: input.model,
    parentId: input.parentId, depth: input.depth, maxDepth: input.limits.maxDepth,
    maxTurns: input.limits.maxTurns, cellTimeoutSeconds: input.limits.cellTimeoutSeconds,
  };
}

/** Logs the end (unless it idled, retained, with nothing under way), stops every child (running or retained), frees the kernel. */
async function finish(s: SessionState, r: SessionResult, acts: ReturnType<typeof sessionActivities>): Promise<void> {
  const { retained } = s;
  s.phase = 'done';
  if (!retained?.idle) await endTask(s, r);
  // Whatever the parent last saw, a child may still run or be retained: every one is told to end.
  for (const child of s.children.values()) await getExternalWorkflowHandle(child.id).cancel().catch(() => undefined);
  if (!retained || retained.unloadedSeq === null) await acts.shutdownKernel({ sessionId: s.id });
}
