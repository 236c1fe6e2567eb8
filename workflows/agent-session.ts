/*
 * The agent-session workflow: the RLM loop, durable. Deterministic code only: no I/O, no clocks
 * but the workflow's, no Node modules. Everything it does to the world goes through activities;
 * prompts are rebuilt by the model activity from the log, never carried here (O(steps) history).
 */
import {
  ActivityFailure, ApplicationFailure, CancellationScope, allHandlersFinished, condition, continueAsNew,
  getExternalWorkflowHandle, isCancellation, workflowInfo,
} from '@temporalio/workflow';
import { installHandlers } from './handlers';
import { childFinishedSignal } from './messages';
import { afterAnswer, fireDueSchedules, logInputGoal } from './keep-going';
import { installLongRunHandlers } from './long-run-handlers';
import { failureKind } from './plan-next-step';
import { callModelFor, reachedLimit, wrapUp } from './wrap-up';
import { sessionActivities } from './proxies';
import { SessionState } from './session-state';
import type { SessionInput, SessionResult } from './session-types';

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
    const outcome = await runTurns(s, acts);
    if (outcome === 'continue') {
      await condition(allHandlersFinished);
      return continueAsNew<typeof agentSessionWorkflow>({ ...input, carry: s.carry() });
    }
    result = outcome;
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
    const code = reply.code;
    if (code === null) {
      await s.emit(() => [{ type: 'ModelCalled', turn, ...reply.event }]);
      if (await afterAnswer(s) === 'end') return { status: 'completed', answer: reply.answer ?? '' };
      if (workflowInfo().continueAsNewSuggested || s.turn % input.limits.turnsPerRun === 0) return 'continue';
      continue;
    }
    // The reply and the cell it asks for go to the log in one append: one round trip less per step.
    const reqSeq = 1 + await s.emit((seq) => [
      { type: 'ModelCalled', turn, ...reply.event },
      { type: 'CellRequested', cellId: `${s.id}/${seq + 1}`, code, toolCallId: reply.toolCallId },
    ]);
    s.phase = 'cell';
    const requestId = `${s.id}/${reqSeq}`;
    const { cell, restored } = await acts.runCell({
      sessionId: s.id, rootId: input.rootId, cellId: requestId, code, timeoutSeconds: input.limits.cellTimeoutSeconds,
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
    if (++s.cellsSinceSnapshot >= input.limits.snapshotEveryCells) await snapshot(s, acts, doneSeq);
    const answer = s.final;
    s.final = null;
    if (answer !== null && await afterAnswer(s) === 'end') return { status: 'completed', answer };
    if (workflowInfo().continueAsNewSuggested || s.turn % input.limits.turnsPerRun === 0) return 'continue';
  }
}

/** Snapshots the kernel; a failed snapshot is skipped (the next cadence tries again), never fatal. */
async function snapshot(s: SessionState, acts: ReturnType<typeof sessionActivities>, coversSeq: number): Promise<void> {
  let r;
  try {
    r = await acts.snapshotKernel({ sessionId: s.id, coversSeq });
  } catch (e) {
    if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
    return;
  }
  s.cellsSinceSnapshot = 0;
  s.lastSnapshot = { manifest: r.manifest, coversSeq };
  await s.emit(() => [{
    type: 'KernelSnapshotted', manifest: r.manifest, coversSeq, variables: r.variables, bytes: r.bytes,
    unsaved: r.unsaved, oversize: r.oversize, durationMs: r.durationMs,
  }]);
}

/** A cell whose run was lost (worker or kernel died): reported, never silently re-run. */
function interrupted(why: string) {
  return {
    status: 'interrupted' as const, outputs: `[the cell was interrupted and not re-run: ${why}]`,
    durationMs: 0, errorName: 'CellInterrupted', errorValue: why,
  };
}

function started(input: SessionInput) {
  return {
    type: 'SessionStarted' as const, task: input.task, name: input.name, model: input.model,
    parentId: input.parentId, depth: input.depth, maxDepth: input.limits.maxDepth,
    maxTurns: input.limits.maxTurns, cellTimeoutSeconds: input.limits.cellTimeoutSeconds,
  };
}

/** Logs the end, stops running children, tells the parent, frees the kernel. */
async function finish(s: SessionState, r: SessionResult, acts: ReturnType<typeof sessionActivities>): Promise<void> {
  s.phase = 'done';
  await s.emit(() => [r.status === 'completed'
    ? { type: 'SessionCompleted', answer: r.answer }
    : { type: 'SessionFailed', kind: r.kind, reason: r.reason }]);
  for (const child of s.children.values()) {
    if (child.status === 'running') await getExternalWorkflowHandle(child.id).cancel().catch(() => undefined);
  }
  if (s.input.parentId) {
    await getExternalWorkflowHandle(s.input.parentId).signal(childFinishedSignal, r.status === 'completed'
      ? { name: s.input.name, status: 'completed', answer: r.answer, error: null }
      : { name: s.input.name, status: r.kind === 'cancelled' ? 'cancelled' : 'failed', answer: null, error: r.reason },
    ).catch(() => undefined);
  }
  await acts.shutdownKernel({ sessionId: s.id });
}
