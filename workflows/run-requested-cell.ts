/*
 * Runs the cell a logged CellRequested asks for and returns what its CellExecuted logs.
 * Deterministic workflow code: the cell is an activity; a cancelled session still logs the
 * cell's end before the cancellation goes on.
 */
import { ActivityFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { BlobRef } from '../schemas/generated/events';
import type { RunCellInput } from '../activities/session-activities';
import { interruptSent, withOperatorNote } from './operator-handlers';
import type { sessionActivities } from './proxies';
import { interrupted } from './session-event-fields';
import { appendFailed } from './session-log';
import type { SessionState } from './session-state';
import { cellScan } from './workspace-log';

export interface RequestedCell {
  requestId: string;
  /** seq of the CellRequested. */
  reqSeq: number;
  code: string;
  codeBlob: BlobRef | null;
}

/** `leftByLoop`: the worker's steps logged the request and left the cell in flight (worker-steps.ts): it is resumed, never sent again. */
export async function runRequestedCell(s: SessionState, acts: ReturnType<typeof sessionActivities>, c: RequestedCell, leftByLoop: RunCellInput['leftByLoop'] = null) {
  const { input } = s;
  const { requestId, code, codeBlob } = c;
  try {
    await interruptSent(s);
    s.phase = 'cell';
    // The activity writes the CellRequested (SessionLog.ride) before it sends the cell.
    const { cell, restored, scanned } = await s.withRide((ride) => acts.runCell({
      sessionId: s.id, rootId: input.rootId, cellId: requestId, code, codeBlob, timeoutSeconds: input.limits.cellTimeoutSeconds,
      // A snapshot still riding is in the batch this activity writes before it could restore.
      firstCell: s.long.cellsRun++ === 0, restoreFrom: s.snapshotRiding ?? s.lastSnapshot, throughSeq: c.reqSeq, ...ride,
      scan: s.scanInCell ? cellScan(s, requestId) : null, ...(leftByLoop && { leftByLoop }),
    })).catch((e: unknown) => {
      // A failed append, before the cell was sent, ends the session as any failed append does.
      if (!(e instanceof ActivityFailure) || isCancellation(e) || appendFailed(e)) throw e;
      // Whether the batch it carried was written is unknown: the next append carries it again.
      return { cell: interrupted(e.cause?.message ?? e.message), restored: null, scanned: null };
    });
    return { cell: withOperatorNote(s, requestId, cell), restored, scanned: scanned ?? null };
  } catch (e) {
    if (!isCancellation(e)) throw e;
    // Runs from before: only a cancelled activity logged the cell's end.
    if (!(e instanceof ActivityFailure) && !s.appendsOutliveCancellation) throw e;
    // Every CellRequested gets its CellExecuted, even when the session is cancelled mid-cell or
    // before its cell started (while an operator's interrupt was under way, or the session was placed).
    const lost = interrupted('the session was cancelled');
    await CancellationScope.nonCancellable(() => s.emit(() => [{ type: 'CellExecuted', requestId, code, ...lost }]));
    throw e;
  }
}
