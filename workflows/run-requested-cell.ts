/*
 * Runs the cell a logged CellRequested asks for and returns what its CellExecuted logs.
 * Deterministic workflow code: the cell is an activity; a cancelled session still logs the
 * cell's end before the cancellation goes on.
 */
import { ActivityFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { BlobRef } from '../schemas/generated/events';
import { interruptSent, withOperatorNote } from './operator-handlers';
import type { sessionActivities } from './proxies';
import { interrupted } from './session-event-fields';
import type { SessionState } from './session-state';

export interface RequestedCell {
  requestId: string;
  /** seq of the CellRequested. */
  reqSeq: number;
  code: string;
  codeBlob: BlobRef | null;
}

export async function runRequestedCell(s: SessionState, acts: ReturnType<typeof sessionActivities>, c: RequestedCell) {
  const { input } = s;
  const { requestId, code, codeBlob } = c;
  await interruptSent(s);
  s.phase = 'cell';
  const { cell, restored } = await acts.runCell({
    sessionId: s.id, rootId: input.rootId, cellId: requestId, code, codeBlob, timeoutSeconds: input.limits.cellTimeoutSeconds,
    firstCell: s.long.cellsRun++ === 0, restoreFrom: s.lastSnapshot, throughSeq: c.reqSeq,
  }).catch(async (e: unknown) => {
    if (!(e instanceof ActivityFailure)) throw e;
    if (!isCancellation(e)) return { cell: interrupted(e.cause?.message ?? e.message), restored: null };
    // Every CellRequested gets its CellExecuted, even when the session is cancelled mid-cell.
    const lost = interrupted('the session was cancelled');
    await CancellationScope.nonCancellable(() => s.emit(() => [{ type: 'CellExecuted', requestId, code, ...lost }]));
    throw e;
  });
  return { cell: withOperatorNote(s, requestId, cell), restored };
}
