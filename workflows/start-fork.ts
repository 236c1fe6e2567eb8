/*
 * The start of a forked session (docs/fork.md): its history is copied from the origin's log by an
 * activity, and the workflow takes over the counters that history implies. Deterministic: only
 * the copy's small fold travels through history, never the copied events.
 */
import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { CopyForkLogResult, ForkActivities } from '../activities/fork/fork-activities';
import type { SessionState } from './session-state';
import type { ForkSpec } from './session-types';
import { budgetEvents } from './tree-budget';

const { copyForkLog } = proxyActivities<ForkActivities>({
  // One read of the origin's log and one append of up to its whole length; a retry writes the same bytes.
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

/** Copies the origin's history into this session's log, takes over its counters, then logs ForkedFrom (and the fork's budget). */
export async function startFork(s: SessionState, fork: ForkSpec): Promise<void> {
  let copy: CopyForkLogResult | undefined;
  // Inside the append queue, so nothing else is appended before the copy; the copy itself is the activity's append.
  // Not cancellable: a cancel mid-copy would log the session's end at seq 0, over the copy's own seq 0.
  await s.emit(async () => {
    copy = await CancellationScope.nonCancellable(() => copyForkLog({ forkId: s.id, originId: fork.originId, atSeq: fork.atSeq }));
    return [];
  }, () => {
    const { fold } = copy!;
    s.nextSeq = copy!.nextSeq;
    s.headHash = copy!.headHash;
    s.turn = fold.turn;
    s.tokens = fold.tokens;
    s.cellsSinceSnapshot = fold.cellsSinceSnapshot;
    s.lastSnapshot = fold.lastSnapshot;
    s.long.cellsRun = fold.cellsRun;
    s.long.costUsd = fold.costUsd;
    s.long.compactions = fold.compactions;
  });
  const { originHash, fold } = copy!;
  const instruction = fork.instruction ?? null;
  await s.emit(() => [{
    type: 'ForkedFrom', originSessionId: fork.originId, originSeq: fork.atSeq, originHash, snapshotSeq: fold.snapshotSeq,
    model: s.input.model, instructionMessageId: instruction?.messageId ?? null, children: fold.children,
  }, ...budgetEvents(s)]);
  if (instruction) s.accept(instruction);
}
