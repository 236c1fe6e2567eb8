/*
 * Plain steps the worker runs: at a turn where nothing waits on the workflow, it hands the log
 * to one activity on the session's host that runs up to an allowance of steps with no round trip
 * to Temporal between them (activities/step-loop/run-steps.ts; docs/performance.md, "Steps the
 * worker runs"). Deterministic: the allowance is worked out from the state, the steps' result
 * is applied to it, and anything that reaches the workflow meanwhile stops them first
 * (SessionState.settleSteps).
 */
import { ActivityFailure, CancellationScope, CancelledFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { RunStepsInput, RunStepsResult } from '../activities/step-loop/steps-types';
import { policyOf } from './approvals/approval-handlers';
import { gatesOutsideChanges } from './approvals/sensitive-gate';
import { treeSpend } from './approvals/tree-spend';
import { shouldAutoRefine } from './harness/decide-auto-refine';
import { kernelActivities, type sessionActivities } from './proxies';
import { nextWake } from './schedules';
import { appendFailed } from './session-log';
import type { SessionState } from './session-state';
import { spendOf, underBudget } from './tree-budget';

type Acts = ReturnType<typeof sessionActivities>;

/** Most steps one allowance runs: its result, and a retry's read of the log, stay small. */
const MAX_STEPS_PER_ALLOWANCE = 200;

/** Whether anything about the session's turns needs the workflow before or after each call. */
function needsWorkflowEachTurn(s: SessionState): boolean {
  return underBudget(s) || !!s.input.autonomous || s.long.goal !== null || s.research !== null || s.ops.compactAsked
    || s.inbox.length > 0 || s.final !== null || gatesOutsideChanges(s);
}

/** What the tree may spend before the spend gate asks for an approval (approvals/spend-gate.ts): the steps stop short of it. */
function spendLeft(s: SessionState): RunStepsInput['spendLeft'] {
  const policy = policyOf(s);
  if (!policy.require.includes('spend')) return { tokens: null, costUsd: null };
  const spent = treeSpend(s);
  const mark = s.approvals.spendMark;
  return {
    tokens: policy.spendTokens > 0 ? mark.tokens + policy.spendTokens - spent.tokens : null,
    costUsd: policy.spendCostUsd > 0 ? mark.costUsd + policy.spendCostUsd - spent.costUsd : null,
  };
}

/** How many plain steps may run now without the workflow: 0 when something needs it at the next turn. Pure. */
function stepAllowance(s: SessionState): number {
  // Placing a session logs it: the first cell, on the workflow's own path, places it.
  if (!s.workerRunsSteps || s.host === null || needsWorkflowEachTurn(s)) return 0;
  const { limits, depth } = s.input;
  let steps = Math.min(MAX_STEPS_PER_ALLOWANCE, limits.maxTurns - s.turn, limits.turnsPerRun - (s.turn % limits.turnsPerRun));
  // The step that reaches an auto-refine's turn is the allowance's last.
  for (let k = 1; k < steps; k++) {
    if (shouldAutoRefine({ depth, limits }, s.turn + k)) steps = k;
  }
  return Math.max(steps, 0);
}

/**
 * Runs the worker's steps when the allowance is not 0, and applies what they logged; null when
 * none ran. A result's unhandled reply, or a cell it left in flight or whose end it could not
 * log, is the caller's to carry on with.
 */
export async function runWorkerSteps(s: SessionState, acts: Acts): Promise<RunStepsResult | null> {
  // Cancelled (or ending for a fault): the workflow's own path meets the cancellation at its next activity.
  if (CancellationScope.current().consideredCancelled) return null;
  const steps = stepAllowance(s);
  if (steps === 0) return null;
  const loopId = `${workflowInfo().runId}/${s.stepRuns++}`;
  let stopped = false;
  const stop = () => {
    if (stopped || s.stepsInFlight?.stop !== stop) return;
    stopped = true;
    // A stop sent twice is one stop; one the worker never gets is made good by the allowance's end.
    void CancellationScope.nonCancellable(() => acts.stopSteps({ loopId })).catch(() => undefined);
  };
  let settle: () => void = () => undefined;
  s.stepsInFlight = { stop, settled: new Promise<void>((resolve) => (settle = resolve)) };
  let failed: unknown = null;
  try {
    const r = await s.handOver(async (head, ride) => {
      const input: RunStepsInput = {
        loopId, sessionId: s.id, rootId: s.input.rootId, parentId: s.input.parentId, agent: s.input.name, model: s.ops.model,
        head, append: ride.append ?? null, turn: s.turn, steps, until: nextWake(s.long.schedules), spendLeft: spendLeft(s),
        compactAtTokens: s.input.limits.compactAtTokens ?? null, compactions: s.long.compactions,
        cellTimeoutSeconds: s.input.limits.cellTimeoutSeconds, cellsRun: s.long.cellsRun,
        lastSnapshot: s.snapshotRiding ?? s.lastSnapshot, snapshotEvery: s.input.limits.snapshotEveryCells,
        cellsSinceSnapshot: s.cellsSinceSnapshot, workspaceStart: s.workspaceStart,
      };
      return CancellationScope.nonCancellable(() => acts.runSteps(input).catch((e: unknown) => {
        // An append the log refused ends the session, as at any other site, once the head is known again.
        if (appendFailed(e)) failed = e;
        return takeBack(s, e, input);
      }));
    }, stop, (r) => apply(s, r));
    if (failed) throw failed;
    // The steps ran shielded from a cancellation (or a handler's fault) that came meanwhile: it
    // goes on here, unless a cell of theirs must have its end logged first (run-requested-cell.ts).
    if (CancellationScope.current().consideredCancelled && !r.cellLeft && !r.cellEnded) {
      throw new CancelledFailure('the session was cancelled while the worker ran its steps');
    }
    return r;
  } finally {
    s.stepsInFlight = null;
    settle();
  }
}

/**
 * The steps failed for good (their host lost, say): a writer that may have logged past the head
 * is fenced, and what it logged is taken as the session's, by a run of no steps that only adopts
 * the log, on any worker; a cell it left is the workflow's to resume, which re-homes the session
 * if its host is gone. Failing that, the head is unknown, and the session ends without logging
 * more (SessionLog.handOver).
 */
async function takeBack(s: SessionState, e: unknown, input: RunStepsInput): Promise<RunStepsResult> {
  if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
  return kernelActivities(s.input.limits.cellTimeoutSeconds).runSteps({ ...input, loopId: `${input.loopId}/back`, steps: 0, adopt: true });
}

/** What the steps logged, applied as the workflow applies each event of a step. */
function apply(s: SessionState, r: RunStepsResult): void {
  const { done } = r;
  for (const call of done.calls) {
    s.tokens += call.tokens;
    s.long.recordCall(call.tokens, call.costUsd);
  }
  s.turn += done.calls.length;
  if (done.calls.length > 0) s.rejectedInARow = 0;
  s.long.cellsRun += done.cellsEnded;
  s.cellsSinceSnapshot = done.cellsSinceSnapshot;
  if (done.lastSnapshot) s.lastSnapshot = done.lastSnapshot;
  s.snapshotDue = s.cellsSinceSnapshot >= s.input.limits.snapshotEveryCells;
  if (r.cellLeft) s.ops.cellInFlight = r.cellLeft.requestId;
  s.ledger?.record(s.id, spendOf(s));
}

